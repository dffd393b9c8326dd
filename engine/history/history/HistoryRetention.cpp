#include "history/HistoryRetention.h"

#include "core/Logging.h"
#include "core/RunFilesStore.h"
#include "history/HistoryDatabase.h"
#include "history/RunDeletion.h"
#include "history/RunStatus.h"

#include <QDateTime>
#include <QDir>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>

namespace csm {

namespace {

// Rows a prune deletes per transaction: a few hundred keeps each transaction short.
constexpr int kPruneBatch = 500;
// vacuumIfWorthIt: at least this many free pages, and a fifth of the file.
constexpr qint64 kVacuumMinFreePages = 256;
constexpr int kVacuumPagesPerTransaction = 1024;
// PRAGMA auto_vacuum's value for INCREMENTAL.
constexpr qint64 kIncrementalVacuum = 2;
// What a run takes besides its texts (its other columns, its index entries), for pruneBySize's
// estimate of what deleting it frees.
constexpr qint64 kRunOverheadBytes = 256;
constexpr qint64 kPruneBytesPerTransaction = 64LL * 1024 * 1024;
constexpr qint64 kMsPerDay = 24LL * 60 * 60 * 1000;

// A prune that failed part way: how many runs went before.
Unexpected prunedBefore(const QString& reason, int total)
{
    if (total == 0)
        return Unexpected(reason);
    return Unexpected(QStringLiteral("%1 (after pruning %2 runs)").arg(reason).arg(total));
}

} // namespace

HistoryRetention::HistoryRetention(HistoryDatabase& database)
    : m_database(database)
{}

Expected<int> HistoryRetention::prune(const RetentionPolicy& policy)
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    int total = 0;
    Expected<void> pruned = pruneByCountAndAge(policy, &total);
    if (pruned && policy.maxTotalBytes > 0)
        pruned = pruneBySize(policy.maxTotalBytes, &total);
    if (total > 0)
        qCInfo(lcHistory) << "pruned" << total << "runs from the history";
    if (!pruned)
        return prunedBefore(pruned.error(), total);
    return total;
}

Expected<int> HistoryRetention::pruneToSize(qint64 maxBytes)
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    int total = 0;
    Expected<void> pruned;
    if (maxBytes > 0)
        pruned = pruneBySize(maxBytes, &total);
    if (total > 0)
        qCInfo(lcHistory) << "pruned" << total << "runs to keep the history within"
                          << maxBytes / RetentionPolicy::kMiB << "MiB";
    if (!pruned)
        return prunedBefore(pruned.error(), total);
    return total;
}

Expected<void> HistoryRetention::pruneByCountAndAge(const RetentionPolicy& policy, int* total)
{
    if (policy.maxRuns <= 0 && policy.maxAgeDays <= 0)
        return {};
    const qint64 oldestKept =
        QDateTime::currentMSecsSinceEpoch() - static_cast<qint64>(policy.maxAgeDays) * kMsPerDay;
    for (;;) {
        const Expected<qint64> deleted = RunDeletion::inTransaction(
            m_database, "pruning the history", [&](RunDeletion& deletion) -> Expected<void> {
                QStringList conditions;
                QVariantList values;
                if (policy.maxRuns > 0) {
                    // The id of the maxRuns-th newest run: everything older goes.
                    QSqlQuery cutoff = m_database.query();
                    cutoff.prepare(QStringLiteral("SELECT id FROM runs ORDER BY id DESC LIMIT 1 "
                                                  "OFFSET ?"));
                    cutoff.addBindValue(policy.maxRuns - 1);
                    if (Expected<void> read = m_database.execute(cutoff, "pruning the history");
                        !read)
                        return read;
                    if (cutoff.next()) {
                        conditions += QStringLiteral("id < ?");
                        values += cutoff.value(0).toLongLong();
                    }
                }
                if (policy.maxAgeDays > 0) {
                    conditions += QStringLiteral("started_at < ?");
                    values += oldestKept;
                }
                if (conditions.isEmpty())
                    return {};
                values.prepend(RunStatusTraits::toString(RunStatus::Running));
                return deletion.deleteWhere(
                    QStringLiteral("id IN (SELECT id FROM runs WHERE status != ? AND (") +
                        conditions.join(QStringLiteral(" OR ")) +
                        QStringLiteral(") ORDER BY id LIMIT %1)").arg(kPruneBatch),
                    values);
            });
        if (!deleted)
            return Unexpected(deleted.error());
        *total += static_cast<int>(*deleted);
        if (*deleted < kPruneBatch)
            return {};
    }
}

Expected<void> HistoryRetention::pruneBySize(qint64 maxBytes, int* total)
{
    // Looked at before taking the write lock: nearly always the history is within its budget.
    const Expected<qint64> before = m_database.usedBytes();
    if (!before)
        return Unexpected(before.error());
    if (*before <= maxBytes)
        return {};
    for (;;) {
        bool over = false;
        const Expected<qint64> deleted = RunDeletion::inTransaction(
            m_database, "pruning the history to its size limit",
            [&](RunDeletion& deletion) -> Expected<void> {
                // Measured again inside the transaction: another process may have pruned already.
                const Expected<qint64> used = m_database.usedBytes();
                if (!used)
                    return Unexpected(used.error());
                over = *used > maxBytes;
                if (!over)
                    return {};
                // The oldest ended runs whose texts add up to the excess, or to
                // kPruneBytesPerTransaction if that is less: other processes' writes never wait
                // long, even for runs recorded before texts were capped. length() counts
                // characters, not bytes, and pages are not all full: an estimate, and the loop
                // measures again after each batch rather than deleting more than it must.
                const qint64 toFree = std::min(*used - maxBytes, kPruneBytesPerTransaction);
                QSqlQuery oldest = m_database.query();
                oldest.prepare(QStringLiteral("SELECT id, length(code) + length(stdout_text) + "
                                              "length(stderr_text) + length(error_message) FROM "
                                              "runs WHERE status != ? ORDER BY id LIMIT %1")
                                   .arg(kPruneBatch));
                oldest.addBindValue(RunStatusTraits::toString(RunStatus::Running));
                if (Expected<void> read =
                        m_database.execute(oldest, "pruning the history to its size limit");
                    !read)
                    return read;
                qint64 lastId = 0;
                qint64 freed = 0;
                while (freed < toFree && oldest.next()) {
                    lastId = oldest.value(0).toLongLong();
                    freed += oldest.value(1).toLongLong() + kRunOverheadBytes;
                }
                oldest.finish();
                if (lastId == 0)
                    return {}; // nothing but running runs: they stay, whatever their size
                return deletion.deleteWhere(
                    QStringLiteral("id <= ? AND status != ?"),
                    {lastId, RunStatusTraits::toString(RunStatus::Running)});
            });
        if (!deleted)
            return Unexpected(deleted.error());
        *total += static_cast<int>(*deleted);
        if (!over || *deleted == 0)
            return {};
    }
}

Expected<int> HistoryRetention::pruneFiles(qint64 maxBytes, qint64* bytesLeft)
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    if (maxBytes <= 0)
        return 0;
    QSqlQuery running = m_database.query();
    running.prepare(
        QStringLiteral("SELECT files_key FROM runs WHERE status = ? AND files_key != ''"));
    running.addBindValue(RunStatusTraits::toString(RunStatus::Running));
    if (Expected<void> read = m_database.execute(running, "pruning the runs' files"); !read)
        return Unexpected(read.error());
    QStringList keep;
    while (running.next())
        keep.append(running.value(0).toString());
    const QStringList removed =
        RunFilesStore(m_database.filesRoot()).pruneTo(maxBytes, keep, bytesLeft);
    if (!removed.isEmpty())
        qCInfo(lcHistory) << "removed the files of" << removed.size() << "runs to keep them within"
                          << maxBytes / RetentionPolicy::kMiB << "MiB";
    return static_cast<int>(removed.size());
}

Expected<int> HistoryRetention::vacuumIfWorthIt()
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    const Expected<qint64> autoVacuum = autoVacuumMode();
    if (!autoVacuum)
        return Unexpected(autoVacuum.error());
    const Expected<QList<qint64>> counts =
        m_database.readIntegers({{QStringLiteral("PRAGMA freelist_count"), "vacuuming"},
                                 {QStringLiteral("PRAGMA page_count"), "vacuuming"}});
    if (!counts)
        return Unexpected(counts.error());
    const qint64 freePages = counts->at(0);
    const qint64 pages = counts->at(1);
    // A file made without incremental auto-vacuum would need a full VACUUM, which locks every
    // process out for as long as it takes to rewrite the file: see enableIncrementalVacuum().
    if (*autoVacuum != kIncrementalVacuum || freePages < kVacuumMinFreePages ||
        freePages * 5 < pages)
        return 0;
    for (qint64 left = freePages; left > 0; left -= kVacuumPagesPerTransaction) {
        const Expected<void> written = m_database.write("vacuuming", [&]() -> Expected<void> {
            // SQLite frees one page per step of this pragma, and QtSql steps a statement without
            // result columns only once per exec(): hence one exec() per page.
            QSqlQuery query = m_database.query();
            if (!query.prepare(QStringLiteral("PRAGMA incremental_vacuum")))
                return m_database.failure("vacuuming", query.lastError());
            const qint64 chunk = qMin<qint64>(left, kVacuumPagesPerTransaction);
            for (qint64 i = 0; i < chunk; ++i) {
                if (Expected<void> step = m_database.execute(query, "vacuuming"); !step)
                    return step;
            }
            return {};
        });
        if (!written)
            break;
    }
    const Expected<qint64> freeAfter =
        m_database.readInteger(QStringLiteral("PRAGMA freelist_count"), "vacuuming");
    const qint64 released = freeAfter ? freePages - *freeAfter : 0;
    // Copy the shrunk pages into the file now, so that its size goes down.
    QSqlQuery checkpoint = m_database.query();
    checkpoint.exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
    qCInfo(lcHistory) << "released" << released << "free pages of the history";
    return static_cast<int>(released);
}

Expected<void> HistoryRetention::enableIncrementalVacuum()
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return here;
    const Expected<qint64> autoVacuum = autoVacuumMode();
    if (!autoVacuum)
        return Unexpected(autoVacuum.error());
    if (*autoVacuum == kIncrementalVacuum)
        return {};
    // The mode of an existing file changes only with a VACUUM, which rewrites all of it.
    if (Expected<void> set = m_database.execute(QStringLiteral("PRAGMA auto_vacuum = INCREMENTAL"),
                                                "setting auto_vacuum");
        !set)
        return set;
    if (Expected<void> rewritten =
            m_database.execute(QStringLiteral("VACUUM"), "rewriting the history with auto_vacuum");
        !rewritten)
        return rewritten;
    qCInfo(lcHistory).noquote() << "the run history" << QDir::toNativeSeparators(m_database.path())
                                << "was rewritten so that it can shrink";
    return {};
}

Expected<qint64> HistoryRetention::autoVacuumMode() const
{
    // SQLite answers this pragma from what it read of the file's header at its last
    // transaction, which another process may have rewritten since: a read brings it up to date.
    if (const Expected<qint64> read = m_database.readInteger(
            QStringLiteral("SELECT count(*) FROM sqlite_master"), "vacuuming");
        !read)
        return read;
    return m_database.readInteger(QStringLiteral("PRAGMA auto_vacuum"), "vacuuming");
}

Expected<qint64> HistoryRetention::contentBytes() const
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    return m_database.usedBytes();
}

} // namespace csm
