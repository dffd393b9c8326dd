#include "history/ActivityReader.h"

#include <QHash>
#include <QScopeGuard>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <algorithm>
#include <map>

namespace csm {

namespace {

// `text` with FROM, BEFORE and BUCKET replaced by the query's numbers (integers we computed, so
// written into the SQL rather than bound: each appears several times).
Expected<void> run(QSqlQuery& sql, QString text, const ActivityQuery& query)
{
    text.replace(QLatin1String("FROM_MS"), QString::number(query.from.toMSecsSinceEpoch()))
        .replace(QLatin1String("BEFORE_MS"), QString::number(query.before.toMSecsSinceEpoch()))
        .replace(QLatin1String("BUCKET_MS"), QString::number(query.bucketMs));
    sql.setForwardOnly(true);
    if (!sql.exec(text))
        return Unexpected(sql.lastError().text());
    return {};
}

} // namespace

Expected<ActivityReport> ActivityReader::read(const QSqlDatabase& db, const ActivityQuery& query)
{
    ActivityReport report;
    report.query = query;
    const int buckets = query.bucketCount();
    report.p50Ms.fill(-1, buckets);
    report.p95Ms.fill(-1, buckets);
    report.maxMs.fill(-1, buckets);
    if (buckets == 0)
        return report;
    // One snapshot for the three queries: a run that ends meanwhile is counted once, one way.
    QSqlQuery transaction(db);
    const bool inTransaction = transaction.exec(QStringLiteral("BEGIN"));
    const auto endTransaction = qScopeGuard([&] {
        if (inTransaction)
            transaction.exec(QStringLiteral("COMMIT"));
    });
    // The interval a run falls in: integer division, or the first start it is not past.
    QString bucketOf = QStringLiteral("(started_at - FROM_MS) / BUCKET_MS");
    if (!query.starts.isEmpty()) {
        bucketOf = QStringLiteral("CASE");
        for (int bucket = 1; bucket < buckets; ++bucket) {
            bucketOf += QStringLiteral(" WHEN started_at < %1 THEN %2")
                            .arg(query.starts.at(bucket).toMSecsSinceEpoch())
                            .arg(bucket - 1);
        }
        bucketOf += QStringLiteral(" ELSE %1 END").arg(buckets - 1);
    }
    const QString inRange =
        QStringLiteral(" FROM runs WHERE started_at >= FROM_MS AND started_at < BEFORE_MS ");
    const auto inBounds = [buckets](int bucket) {
        return bucket >= 0 && bucket < buckets;
    };

    // One pass for both breakdowns: per interval, client and status.
    QSqlQuery counts(db);
    if (const Expected<void> ran =
            run(counts,
                QStringLiteral("SELECT %1 AS b, client_name, status, count(*)").arg(bucketOf) +
                    inRange + QStringLiteral("GROUP BY b, client_name, status"),
                query);
        !ran)
        return Unexpected(ran.error());
    QHash<QString, int> clientIndex;
    std::map<RunStatus, ActivityReport::StatusCalls> statuses;
    while (counts.next()) {
        const int bucket = counts.value(0).toInt();
        if (!inBounds(bucket))
            continue;
        const QString client = counts.value(1).toString();
        const int calls = counts.value(3).toInt();
        auto found = clientIndex.constFind(client);
        if (found == clientIndex.constEnd()) {
            found = clientIndex.insert(client, int(report.clients.size()));
            report.clients.append({client, QList<int>(buckets, 0), 0});
        }
        ActivityReport::ClientCalls& byClient = report.clients[*found];
        byClient.calls[bucket] += calls;
        byClient.total += calls;
        report.totalCalls += calls;
        const std::optional<RunStatus> status =
            RunStatusTraits::fromString(counts.value(2).toString());
        if (!status)
            continue; // a status a newer build wrote: counted, not charted
        ActivityReport::StatusCalls& byStatus = statuses[*status];
        if (byStatus.calls.isEmpty()) {
            byStatus.status = *status;
            byStatus.calls.fill(0, buckets);
        }
        byStatus.calls[bucket] += calls;
        byStatus.total += calls;
    }
    std::stable_sort(report.clients.begin(), report.clients.end(),
                     [](const auto& a, const auto& b) {
                         return a.total != b.total ? a.total > b.total : a.client < b.client;
                     });
    for (auto& [status, entry] : statuses)
        report.statuses.append(entry);

    // The p-th percentile of n sorted durations is the ceil(n * p / 100)-th (nearest rank).
    QSqlQuery durations(db);
    if (const Expected<void> ran =
            run(durations,
                QStringLiteral("SELECT b, duration_ms, rank, n FROM (SELECT %1 AS b, duration_ms, "
                               "row_number() OVER (PARTITION BY %1 ORDER BY duration_ms) AS rank, "
                               "count(*) OVER (PARTITION BY %1) AS n")
                        .arg(bucketOf) +
                    inRange +
                    // Not the runs that have no duration of their own: running, or never ran
                    // (their server died: interrupted; the engine failed: engine_error).
                    QStringLiteral("AND status NOT IN ('running', 'interrupted', 'engine_error')) "
                                   "WHERE rank = (n * 50 + 99) / 100 OR "
                                   "rank = (n * 95 + 99) / 100 OR rank = n"),
                query);
        !ran)
        return Unexpected(ran.error());
    while (durations.next()) {
        const int bucket = durations.value(0).toInt();
        if (!inBounds(bucket))
            continue;
        const qint64 duration = durations.value(1).toLongLong();
        const qint64 rank = durations.value(2).toLongLong();
        const qint64 n = durations.value(3).toLongLong();
        if (rank == (n * 50 + 99) / 100)
            report.p50Ms[bucket] = duration;
        if (rank == (n * 95 + 99) / 100)
            report.p95Ms[bucket] = duration;
        if (rank == n)
            report.maxMs[bucket] = duration;
    }
    return report;
}

} // namespace csm
