#pragma once

#include "history/RetentionPolicy.h"

#include <QCommandLineOption>
#include <QString>

#include <variant>

class QCommandLineParser;

namespace csm {

// The flags that say where the run history is and how much of it to keep, shared by the server
// and the `history` command so that both name, describe and check them alike.
class HistoryOptions final
{
public:
    HistoryOptions();

    const QCommandLineOption& dataDir() const { return m_dataDir; }
    const QCommandLineOption& maxRuns() const { return m_maxRuns; }
    const QCommandLineOption& maxDays() const { return m_maxDays; }

    // The retention the flags ask for (RetentionPolicy's defaults where they are not given), or
    // what is wrong with them.
    std::variant<RetentionPolicy, QString> retention(const QCommandLineParser& parser) const;

private:
    QCommandLineOption m_dataDir;
    QCommandLineOption m_maxRuns;
    QCommandLineOption m_maxDays;
};

} // namespace csm
