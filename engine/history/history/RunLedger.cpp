#include "history/RunLedger.h"

#include "core/Logging.h"
#include "history/HistoryDatabase.h"
#include "history/RunDeletion.h"
#include "history/StopRequests.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QSqlQuery>

#include <algorithm>

namespace csm {

namespace {

// Rows a remove deletes per statement: a few hundred keeps each statement short.
constexpr int kRemoveBatch = 500;

QVariant exitCodeValue(const std::optional<int>& exitCode)
{
    return exitCode ? QVariant(*exitCode) : QVariant(QMetaType::fromType<int>());
}

QString directionText(RunFileRecord::Direction direction)
{
    return direction == RunFileRecord::Direction::Input ? QStringLiteral("in")
                                                        : QStringLiteral("out");
}

// runs.output_file_count: the outputs that came back, which the Runs table marks.
int returnedOutputs(const QList<RunFileRecord>& files)
{
    return static_cast<int>(std::count_if(files.cbegin(), files.cend(), [](const auto& file) {
        return file.direction == RunFileRecord::Direction::Output && file.skipReason.isEmpty();
    }));
}

QString compactJson(const QJsonDocument& document)
{
    return QString::fromUtf8(document.toJson(QJsonDocument::Compact));
}

} // namespace

RunLedger::RunLedger(HistoryDatabase& database, StopRequests& stopRequests)
    : m_database(database)
    , m_stopRequests(stopRequests)
{}

Expected<qint64> RunLedger::recordStart(const RunRecord& run)
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    const auto text = &HistoryDatabase::text;
    qint64 id = 0;
    const Expected<void> written =
        m_database.write("recording the start of a run", [&]() -> Expected<void> {
            const Expected<qint64> seq = m_database.nextChangeSeq();
            if (!seq)
                return Unexpected(seq.error());
            const Expected<QSqlQuery*> prepared = m_database.prepared(
                QStringLiteral(
                    "INSERT INTO runs (change_seq, server_instance, server_pid, host_name, "
                    "transport, session_id, client_name, client_version, tool, language, image, "
                    "code, limits, stdout_text, stderr_text, stdout_truncated, stderr_truncated, "
                    "exit_code, duration_ms, status, started_at, ended_at, error_message, "
                    "files_key, session_name, session_key, cell_number) VALUES (?, ?, ?, ?, ?, ?, "
                    "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)"),
                "recording the start of a run");
            if (!prepared)
                return Unexpected(prepared.error());
            QSqlQuery& insert = **prepared;
            insert.addBindValue(*seq);
            insert.addBindValue(text(run.serverInstance));
            insert.addBindValue(run.serverPid);
            insert.addBindValue(text(run.hostName));
            insert.addBindValue(text(run.transport));
            insert.addBindValue(text(run.sessionId));
            insert.addBindValue(text(run.clientName));
            insert.addBindValue(text(run.clientVersion));
            insert.addBindValue(text(run.tool));
            insert.addBindValue(text(run.language));
            insert.addBindValue(text(run.image));
            insert.addBindValue(text(run.code));
            insert.addBindValue(compactJson(QJsonDocument(run.limits)));
            insert.addBindValue(text(run.stdoutText));
            insert.addBindValue(text(run.stderrText));
            insert.addBindValue(run.stdoutTruncated ? 1 : 0);
            insert.addBindValue(run.stderrTruncated ? 1 : 0);
            insert.addBindValue(exitCodeValue(run.exitCode));
            insert.addBindValue(run.durationMs);
            insert.addBindValue(RunStatusTraits::toString(RunStatus::Running));
            insert.addBindValue(run.startedAt.isValid() ? run.startedAt.toMSecsSinceEpoch()
                                                        : QDateTime::currentMSecsSinceEpoch());
            insert.addBindValue(text(run.errorMessage));
            insert.addBindValue(text(run.filesKey));
            insert.addBindValue(text(run.sessionName));
            insert.addBindValue(text(run.sessionKey));
            insert.addBindValue(run.cellNumber);
            if (Expected<void> inserted =
                    m_database.execute(insert, "recording the start of a run");
                !inserted)
                return inserted;
            id = insert.lastInsertId().toLongLong();
            return insertFiles(id, run.files, RunFileRecord::Direction::Input);
        });
    if (!written)
        return Unexpected(written.error());
    return id;
}

Expected<void> RunLedger::recordEnd(qint64 id, const RunRecord& finished)
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return here;
    if (!RunStatusTraits::isFinal(finished.status)) {
        const QString message =
            QStringLiteral("recording the end of run %1: its status is still running").arg(id);
        qCWarning(lcHistory).noquote() << message;
        return Unexpected(message);
    }
    const auto text = &HistoryDatabase::text;
    return m_database.write("recording the end of a run", [&]() -> Expected<void> {
        const Expected<qint64> seq = m_database.nextChangeSeq();
        if (!seq)
            return Unexpected(seq.error());
        const Expected<QSqlQuery*> prepared = m_database.prepared(
            QStringLiteral(
                "UPDATE runs SET change_seq = ?, status = ?, stdout_text = ?, stderr_text = ?, "
                "stdout_truncated = ?, stderr_truncated = ?, exit_code = ?, duration_ms = ?, "
                "ended_at = ?, error_message = ?, output_file_count = ?, "
                "connections_not_listed = ?, "
                // A cell's number is known once it ran as one; 0 keeps the one it started with.
                "cell_number = CASE WHEN ? > 0 THEN ? ELSE cell_number END, "
                // Limits the engine did not enforce join the limits the run started with.
                "limits = CASE WHEN ? = '[]' THEN limits "
                "ELSE json_set(limits, '$.unenforced', json(?)) END WHERE id = ?"),
            "recording the end of a run");
        if (!prepared)
            return Unexpected(prepared.error());
        QSqlQuery& update = **prepared;
        update.addBindValue(*seq);
        update.addBindValue(RunStatusTraits::toString(finished.status));
        update.addBindValue(text(finished.stdoutText));
        update.addBindValue(text(finished.stderrText));
        update.addBindValue(finished.stdoutTruncated ? 1 : 0);
        update.addBindValue(finished.stderrTruncated ? 1 : 0);
        update.addBindValue(exitCodeValue(finished.exitCode));
        update.addBindValue(finished.durationMs);
        update.addBindValue(finished.endedAt.isValid() ? finished.endedAt.toMSecsSinceEpoch()
                                                       : QDateTime::currentMSecsSinceEpoch());
        update.addBindValue(text(finished.errorMessage));
        update.addBindValue(returnedOutputs(finished.files));
        update.addBindValue(finished.connectionsNotListed);
        update.addBindValue(finished.cellNumber);
        update.addBindValue(finished.cellNumber);
        const QString unenforced =
            compactJson(QJsonDocument(QJsonArray::fromStringList(finished.unenforcedLimits)));
        update.addBindValue(unenforced);
        update.addBindValue(unenforced);
        update.addBindValue(id);
        if (Expected<void> updated = m_database.execute(update, "recording the end of a run");
            !updated)
            return updated;
        if (update.numRowsAffected() != 1) {
            // Deleted meanwhile (by a user, in another process): nothing left to update.
            const QString message =
                QStringLiteral("recording the end of run %1: no such run").arg(id);
            qCInfo(lcHistory).noquote() << message;
            return Unexpected(message);
        }
        if (Expected<void> dropped = m_stopRequests.drop(id, "recording the end of a run");
            !dropped)
            return dropped;
        if (Expected<void> files =
                insertFiles(id, finished.files, RunFileRecord::Direction::Output);
            !files)
            return files;
        return insertConnections(id, finished.connections);
    });
}

Expected<void> RunLedger::recordOutput(qint64 id, const QString& stdoutText,
                                       const QString& stderrText)
{
    // A live view can do without one update; the server's thread must not wait seconds for it
    // while another process holds the file (the app deleting many runs, say).
    const std::chrono::milliseconds usual = m_database.busyTimeout();
    if (Expected<void> shortened = m_database.setBusyTimeout(kLiveOutputBusyTimeout); !shortened)
        return shortened;
    const auto restore = qScopeGuard([&] { (void)m_database.setBusyTimeout(usual); });
    return m_database.write("recording a running run's output", [&]() -> Expected<void> {
        const Expected<qint64> seq = m_database.nextChangeSeq();
        if (!seq)
            return Unexpected(seq.error());
        const Expected<QSqlQuery*> prepared =
            m_database.prepared(QStringLiteral("UPDATE runs SET change_seq = ?, stdout_text = ?, "
                                               "stderr_text = ? WHERE id = ? AND status = ?"),
                                "recording a running run's output");
        if (!prepared)
            return Unexpected(prepared.error());
        QSqlQuery& update = **prepared;
        update.addBindValue(*seq);
        update.addBindValue(HistoryDatabase::text(stdoutText));
        update.addBindValue(HistoryDatabase::text(stderrText));
        update.addBindValue(id);
        update.addBindValue(RunStatusTraits::toString(RunStatus::Running));
        if (Expected<void> updated = m_database.execute(update, "recording a running run's output");
            !updated)
            return updated;
        if (update.numRowsAffected() != 1)
            return Unexpected(
                QStringLiteral("recording the output of run %1: it is not running").arg(id));
        return {};
    });
}

Expected<void> RunLedger::insertFiles(qint64 runId, const QList<RunFileRecord>& files,
                                      RunFileRecord::Direction direction)
{
    const char* what = "recording a run's files";
    if (std::none_of(files.cbegin(), files.cend(), [direction](const RunFileRecord& file) {
            return file.direction == direction;
        }))
        return {};
    // Numbered after the run's files already there: the inputs come at the start, the outputs
    // at the end.
    const Expected<qint64> next = m_database.readInteger(
        QStringLiteral("SELECT coalesce(max(ordinal) + 1, 0) FROM run_files WHERE run_id = %1")
            .arg(runId),
        what);
    if (!next)
        return Unexpected(next.error());
    const auto text = &HistoryDatabase::text;
    qint64 ordinal = *next;
    const Expected<QSqlQuery*> prepared = m_database.prepared(
        QStringLiteral("INSERT INTO run_files (run_id, ordinal, direction, path, size_bytes, "
                       "mime_type, stored_path, skip_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
        what);
    if (!prepared)
        return Unexpected(prepared.error());
    QSqlQuery& insert = **prepared;
    for (const RunFileRecord& file : files) {
        if (file.direction != direction)
            continue;
        insert.addBindValue(runId);
        insert.addBindValue(ordinal++);
        insert.addBindValue(directionText(file.direction));
        insert.addBindValue(text(file.path));
        insert.addBindValue(file.sizeBytes);
        insert.addBindValue(text(file.mimeType));
        insert.addBindValue(text(file.storedPath));
        insert.addBindValue(text(file.skipReason));
        if (Expected<void> inserted = m_database.execute(insert, what); !inserted)
            return inserted;
    }
    return {};
}

Expected<void> RunLedger::insertConnections(qint64 runId,
                                            const QList<RunConnectionRecord>& connections)
{
    if (connections.isEmpty())
        return {};
    const char* what = "recording a run's connections";
    const auto text = &HistoryDatabase::text;
    const Expected<QSqlQuery*> prepared = m_database.prepared(
        QStringLiteral("INSERT INTO run_connections (run_id, ordinal, host, port, allowed, reason, "
                       "address, bytes_sent, bytes_received, started_at, duration_ms) VALUES (?, "
                       "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        what);
    if (!prepared)
        return Unexpected(prepared.error());
    QSqlQuery& insert = **prepared;
    qint64 ordinal = 0;
    for (const RunConnectionRecord& connection : connections) {
        insert.addBindValue(runId);
        insert.addBindValue(ordinal++);
        insert.addBindValue(text(connection.host));
        insert.addBindValue(connection.port);
        insert.addBindValue(connection.allowed ? 1 : 0);
        insert.addBindValue(text(connection.reason));
        insert.addBindValue(text(connection.address));
        insert.addBindValue(connection.bytesSent);
        insert.addBindValue(connection.bytesReceived);
        insert.addBindValue(connection.startedAt.isValid()
                                ? connection.startedAt.toMSecsSinceEpoch()
                                : QDateTime::currentMSecsSinceEpoch());
        insert.addBindValue(connection.durationMs);
        if (Expected<void> inserted = m_database.execute(insert, what); !inserted)
            return inserted;
    }
    return {};
}

Expected<int> RunLedger::markInterrupted(const QString& hostName,
                                         const std::function<bool(qint64 pid)>& isServerAlive)
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    const auto text = &HistoryDatabase::text;
    // The servers are asked about first, outside the transaction: a probe may be slow, and no
    // other process should wait for it.
    QList<std::pair<qint64, QString>> deadServers;
    {
        QSqlQuery servers = m_database.query();
        servers.prepare(QStringLiteral("SELECT DISTINCT server_pid, server_instance FROM runs "
                                       "WHERE status = ? AND host_name = ?"));
        servers.addBindValue(RunStatusTraits::toString(RunStatus::Running));
        servers.addBindValue(text(hostName));
        if (Expected<void> read = m_database.execute(servers, "looking for interrupted runs");
            !read)
            return Unexpected(read.error());
        QHash<qint64, bool> alive;
        while (servers.next()) {
            const qint64 pid = servers.value(0).toLongLong();
            auto known = alive.constFind(pid);
            if (known == alive.constEnd())
                known = alive.insert(pid, isServerAlive(pid));
            if (!*known)
                deadServers.append({pid, servers.value(1).toString()});
        }
    }
    if (deadServers.isEmpty())
        return 0;

    int marked = 0;
    const Expected<void> written =
        m_database.write("marking interrupted runs", [&]() -> Expected<void> {
            marked = 0;
            const qint64 now = QDateTime::currentMSecsSinceEpoch();
            for (const auto& [pid, instance] : deadServers) {
                QList<qint64> ids;
                QSqlQuery runs = m_database.query();
                runs.prepare(QStringLiteral("SELECT id FROM runs WHERE status = ? AND "
                                            "host_name = ? AND server_pid = ? AND "
                                            "server_instance = ? ORDER BY id"));
                runs.addBindValue(RunStatusTraits::toString(RunStatus::Running));
                runs.addBindValue(text(hostName));
                runs.addBindValue(pid);
                runs.addBindValue(text(instance));
                if (Expected<void> read = m_database.execute(runs, "marking interrupted runs");
                    !read)
                    return read;
                while (runs.next())
                    ids.append(runs.value(0).toLongLong());
                runs.finish();
                for (const qint64 id : std::as_const(ids)) {
                    if (Expected<void> one = markRunInterrupted(id, pid, now); !one)
                        return one;
                    ++marked;
                }
            }
            return {};
        });
    if (!written)
        return Unexpected(written.error());
    if (marked > 0)
        qCInfo(lcHistory) << "marked" << marked << "runs of ended servers as interrupted";
    return marked;
}

Expected<void> RunLedger::markRunInterrupted(qint64 id, qint64 pid, qint64 now)
{
    // One change_seq per run, as for any other update, so changedSince can page.
    const Expected<qint64> seq = m_database.nextChangeSeq();
    if (!seq)
        return Unexpected(seq.error());
    QSqlQuery update = m_database.query();
    update.prepare(
        QStringLiteral("UPDATE runs SET change_seq = ?, status = ?, ended_at = ?, error_message = "
                       "CASE WHEN error_message = '' THEN ? ELSE error_message END WHERE id = ?"));
    update.addBindValue(*seq);
    update.addBindValue(RunStatusTraits::toString(RunStatus::Interrupted));
    update.addBindValue(now);
    update.addBindValue(
        QStringLiteral("The server process (pid %1) ended before the run did.").arg(pid));
    update.addBindValue(id);
    if (Expected<void> updated = m_database.execute(update, "marking interrupted runs"); !updated)
        return updated;
    return m_stopRequests.drop(id, "marking interrupted runs");
}

Expected<void> RunLedger::remove(const QList<qint64>& ids)
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return here;
    if (ids.isEmpty())
        return {};
    const Expected<qint64> deleted = RunDeletion::inTransaction(
        m_database, "deleting runs", [&](RunDeletion& deletion) -> Expected<void> {
            for (qsizetype first = 0; first < ids.size(); first += kRemoveBatch) {
                const QList<qint64> batch = ids.mid(first, kRemoveBatch);
                QStringList marks;
                marks.reserve(batch.size());
                QVariantList values;
                for (const qint64 id : batch) {
                    marks += QStringLiteral("?");
                    values += id;
                }
                if (Expected<void> gone = deletion.deleteWhere(
                        QStringLiteral("id IN (") + marks.join(u',') + u')', values);
                    !gone)
                    return gone;
            }
            return {};
        });
    if (!deleted)
        return Unexpected(deleted.error());
    return {};
}

} // namespace csm
