#include "history/StopRequests.h"

#include "history/HistoryDatabase.h"
#include "history/RunStatus.h"

#include <QDateTime>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>

namespace csm {

namespace {

QString idList(const QList<qint64>& ids)
{
    QStringList texts;
    texts.reserve(ids.size());
    for (const qint64 id : ids)
        texts << QString::number(id);
    return texts.join(u',');
}

} // namespace

StopRequests::StopRequests(HistoryDatabase& database)
    : m_database(database)
{}

Expected<void> StopRequests::request(qint64 id)
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return here;
    return m_database.write("asking for a run to stop", [&]() -> Expected<void> {
        QSqlQuery insert = m_database.query();
        insert.prepare(QStringLiteral("INSERT OR IGNORE INTO stop_requests (run_id, requested_at) "
                                      "SELECT id, ? FROM runs WHERE id = ? AND status = ?"));
        insert.addBindValue(QDateTime::currentMSecsSinceEpoch());
        insert.addBindValue(id);
        insert.addBindValue(RunStatusTraits::toString(RunStatus::Running));
        if (Expected<void> asked = m_database.execute(insert, "asking for a run to stop"); !asked)
            return asked;
        if (insert.numRowsAffected() == 1)
            return {};
        // Already asked: that is no failure.
        const Expected<qint64> pending = m_database.readInteger(
            QStringLiteral("SELECT count(*) FROM stop_requests WHERE run_id = %1").arg(id),
            "asking for a run to stop");
        if (!pending)
            return Unexpected(pending.error());
        if (*pending == 0)
            return Unexpected(QStringLiteral("run %1 is not running").arg(id));
        return {};
    });
}

Expected<QList<qint64>> StopRequests::take(const QList<qint64>& runningIds)
{
    QList<qint64> taken;
    if (runningIds.isEmpty())
        return taken;
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    // A cheap read first: nearly always there is no request, and a read takes no write lock.
    QSqlQuery find = m_database.query();
    if (!find.exec(QStringLiteral("SELECT run_id FROM stop_requests WHERE run_id IN (%1)")
                       .arg(idList(runningIds))))
        return m_database.failure("looking for stop requests", find.lastError());
    while (find.next())
        taken << find.value(0).toLongLong();
    find.finish();
    if (taken.isEmpty())
        return taken;
    const Expected<void> removed = m_database.write("taking stop requests", [&] {
        return m_database.execute(
            QStringLiteral("DELETE FROM stop_requests WHERE run_id IN (%1)").arg(idList(taken)),
            "taking stop requests");
    });
    // Not removed: handed out again next time, and stopping a run twice does no harm.
    Q_UNUSED(removed);
    return taken;
}

Expected<void> StopRequests::drop(qint64 runId, const char* what)
{
    const Expected<QSqlQuery*> prepared =
        m_database.prepared(QStringLiteral("DELETE FROM stop_requests WHERE run_id = ?"), what);
    if (!prepared)
        return Unexpected(prepared.error());
    QSqlQuery& drop = **prepared;
    drop.addBindValue(runId);
    return m_database.execute(drop, what);
}

} // namespace csm
