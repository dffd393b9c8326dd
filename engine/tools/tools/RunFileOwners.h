#pragma once

#include "mcp/CallContext.h"

#include <QHash>
#include <QQueue>
#include <QString>

namespace csm {

// Which client made each run's files, so that resources/read serves a run's files only to the
// client that made them: over HTTP, several clients share one server, and a URI that one of them
// was given (in a transcript, a log, a shared chat) must not open another's files. Over stdio a
// server has one client, which owns every run it made. In memory: a new server serves the links
// of the runs it made, not those of an earlier one.
class RunFileOwners final
{
public:
    // The most runs remembered: the oldest are forgotten beyond it (their links then read as
    // gone), so that a server that runs for months does not grow without end.
    static constexpr qsizetype kMaxRuns = 100'000;

    void add(const QString& filesKey, const CallContext& maker);
    bool mayRead(const QString& filesKey, const CallContext& reader) const;

private:
    static QString clientOf(const CallContext& context);

    QHash<QString, QString> m_owners; // files key -> client
    QQueue<QString> m_order;          // files keys, oldest first
};

} // namespace csm
