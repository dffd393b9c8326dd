#pragma once

#include "history/ActivityQuery.h"
#include "history/RunStatus.h"

#include <QList>
#include <QString>

namespace csm {

// What the history holds about a stretch of time (ActivityQuery), interval by interval: calls
// by client, calls by how they ended, and how long the ended ones took. Every list of counts or
// durations has one entry per interval (query.bucketCount()).
struct ActivityReport
{
    struct ClientCalls
    {
        QString client; // as the client named itself; empty for clients that gave no name
        QList<int> calls;
        int total = 0;
    };
    struct StatusCalls
    {
        RunStatus status = RunStatus::Ok;
        QList<int> calls;
        int total = 0;
    };

    ActivityQuery query;
    // The most active client first.
    QList<ClientCalls> clients;
    // In RunStatus order; only the statuses some run in the stretch has.
    QList<StatusCalls> statuses;
    // Of the ended runs (their duration_ms) of each interval; -1 where none ended.
    QList<qint64> p50Ms;
    QList<qint64> p95Ms;
    QList<qint64> maxMs;
    int totalCalls = 0;
};

} // namespace csm
