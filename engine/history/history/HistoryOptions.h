#pragma once

#include "core/Expected.h"
#include "history/RetentionPolicy.h"

#include <QCommandLineOption>
#include <QList>
#include <QString>

#include <optional>

class QCommandLineParser;

namespace csm {

class SettingsFile;

// The flags that say where the run history is and how much of it to keep, shared by the server
// and the `history` command so that both name, describe and check them alike.
class HistoryOptions final
{
public:
    // A value of settings.ini that was skipped because it is not valid.
    struct StoredProblem
    {
        QString key;
        QString text;
        QString problem;
    };

    HistoryOptions();

    const QCommandLineOption& dataDir() const { return m_dataDir; }
    const QCommandLineOption& maxRuns() const { return m_maxRuns; }
    const QCommandLineOption& maxDays() const { return m_maxDays; }
    const QCommandLineOption& maxMb() const { return m_maxMb; }
    const QCommandLineOption& filesMaxMb() const { return m_filesMaxMb; }
    // The four above, in the order --help lists them.
    QList<QCommandLineOption> retentionOptions() const
    {
        return {m_maxRuns, m_maxDays, m_maxMb, m_filesMaxMb};
    }

    // The retention the flags ask for, with the values of `stored` (settings.ini, the same keys
    // as the flags) for the flags not given and RetentionPolicy's defaults for the rest. Fails
    // with what is wrong with a flag. A stored value that is not valid is skipped and added to
    // `problems`.
    Expected<RetentionPolicy> retention(const QCommandLineParser& parser,
                                        const SettingsFile* stored = nullptr,
                                        QList<StoredProblem>* problems = nullptr) const;

    // Puts `text`, the value of the retention flag named `key`, into `policy`; or says what is
    // wrong with it.
    std::optional<QString> applyLimit(const QString& key, const QString& text,
                                      RetentionPolicy& policy) const;

private:
    QCommandLineOption m_dataDir;
    QCommandLineOption m_maxRuns;
    QCommandLineOption m_maxDays;
    QCommandLineOption m_maxMb;
    QCommandLineOption m_filesMaxMb;
};

} // namespace csm
