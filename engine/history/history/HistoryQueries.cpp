#include "history/HistoryQueries.h"

#include "core/Logging.h"
#include "history/ActivityReader.h"
#include "history/HistoryDatabase.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlError>
#include <QSqlQuery>

namespace csm {

namespace {

// Every column of a run, in the order readRun expects them.
enum Column
{
    ColId,
    ColChangeSeq,
    ColServerInstance,
    ColServerPid,
    ColHostName,
    ColTransport,
    ColSessionId,
    ColClientName,
    ColClientVersion,
    ColTool,
    ColLanguage,
    ColImage,
    ColCode,
    ColLimits,
    ColStdout,
    ColStderr,
    ColStdoutTruncated,
    ColStderrTruncated,
    ColExitCode,
    ColDurationMs,
    ColStatus,
    ColStartedAt,
    ColEndedAt,
    ColErrorMessage,
    ColFilesKey,
    ColOutputFileCount,
    ColSessionName,
    ColSessionKey,
    ColCellNumber,
    ColConnectionsNotListed,
};

QString contentColumn(const QString& name, bool includeContent, int previewChars)
{
    if (includeContent)
        return name;
    if (previewChars <= 0)
        return QStringLiteral("''");
    return QStringLiteral("substr(%1, 1, %2)").arg(name).arg(previewChars);
}

// Stderr's end rather than its start, where a failed program says why.
QString stderrColumn(bool includeContent, int previewChars, int tailChars)
{
    if (!includeContent && tailChars > 0)
        return QStringLiteral("substr(stderr_text, -%1)").arg(tailChars);
    return contentColumn(QStringLiteral("stderr_text"), includeContent, previewChars);
}

QString selectColumns(bool includeContent, int previewChars, int tailChars = 0)
{
    return QStringLiteral("SELECT id, change_seq, server_instance, server_pid, host_name, "
                          "transport, session_id, client_name, client_version, tool, language, "
                          "image, ") +
           contentColumn(QStringLiteral("code"), includeContent, previewChars) +
           QStringLiteral(", limits, ") +
           contentColumn(QStringLiteral("stdout_text"), includeContent, previewChars) +
           QStringLiteral(", ") + stderrColumn(includeContent, previewChars, tailChars) +
           QStringLiteral(
               ", stdout_truncated, stderr_truncated, exit_code, duration_ms, status, "
               "started_at, ended_at, error_message, files_key, output_file_count, session_name, "
               "session_key, cell_number, connections_not_listed FROM runs");
}

RunRecord readRun(const QSqlQuery& query)
{
    RunRecord run;
    run.id = query.value(ColId).toLongLong();
    run.changeSeq = query.value(ColChangeSeq).toLongLong();
    run.serverInstance = query.value(ColServerInstance).toString();
    run.serverPid = query.value(ColServerPid).toLongLong();
    run.hostName = query.value(ColHostName).toString();
    run.transport = query.value(ColTransport).toString();
    run.sessionId = query.value(ColSessionId).toString();
    run.clientName = query.value(ColClientName).toString();
    run.clientVersion = query.value(ColClientVersion).toString();
    run.tool = query.value(ColTool).toString();
    run.language = query.value(ColLanguage).toString();
    run.image = query.value(ColImage).toString();
    run.code = query.value(ColCode).toString();
    run.limits = QJsonDocument::fromJson(query.value(ColLimits).toString().toUtf8()).object();
    run.stdoutText = query.value(ColStdout).toString();
    run.stderrText = query.value(ColStderr).toString();
    run.stdoutTruncated = query.value(ColStdoutTruncated).toLongLong() != 0;
    run.stderrTruncated = query.value(ColStderrTruncated).toLongLong() != 0;
    const QVariant exitCode = query.value(ColExitCode);
    if (!exitCode.isNull())
        run.exitCode = exitCode.toInt();
    run.durationMs = query.value(ColDurationMs).toLongLong();
    const QString status = query.value(ColStatus).toString();
    // A status this build does not know can only come from a newer build that broke the rule
    // "a new status is a new schema version"; showing it as an error is the least surprising.
    run.status = RunStatusTraits::fromString(status).value_or(RunStatus::Error);
    run.startedAt = HistoryDatabase::dateTime(query.value(ColStartedAt));
    run.endedAt = HistoryDatabase::dateTime(query.value(ColEndedAt));
    run.errorMessage = query.value(ColErrorMessage).toString();
    run.filesKey = query.value(ColFilesKey).toString();
    run.outputFileCount = query.value(ColOutputFileCount).toInt();
    run.sessionName = query.value(ColSessionName).toString();
    run.sessionKey = query.value(ColSessionKey).toString();
    run.cellNumber = query.value(ColCellNumber).toInt();
    run.connectionsNotListed = query.value(ColConnectionsNotListed).toInt();
    return run;
}

// LIKE pattern matching `needle` anywhere, with its own wildcards taken literally
// (used with ESCAPE '\').
QString containsPattern(const QString& needle)
{
    QString escaped;
    escaped.reserve(needle.size() + 8);
    for (const QChar c : needle) {
        if (c == u'\\' || c == u'%' || c == u'_')
            escaped += u'\\';
        escaped += c;
    }
    return u'%' + escaped + u'%';
}

// The WHERE clause of a HistoryQuery, with its values in order.
QString whereClause(const HistoryQuery& query, QVariantList* values)
{
    QStringList conditions;
    if (query.beforeId) {
        conditions += QStringLiteral("id < ?");
        values->append(*query.beforeId);
    }
    if (query.sinceId) {
        conditions += QStringLiteral("id > ?");
        values->append(*query.sinceId);
    }
    if (!query.ids.isEmpty()) {
        QStringList marks;
        marks.reserve(query.ids.size());
        for (const qint64 id : query.ids) {
            marks += QStringLiteral("?");
            values->append(id);
        }
        conditions += QStringLiteral("id IN (") + marks.join(u',') + u')';
    }
    if (!query.statuses.isEmpty()) {
        QStringList marks;
        for (const RunStatus status : query.statuses) {
            marks += QStringLiteral("?");
            values->append(RunStatusTraits::toString(status));
        }
        // "+": not through the status index, whose rows come in host order and would all have
        // to be read and sorted by id (85% of them for "ok"); the id order, in a window of ids
        // or up to the page's limit, is cheaper. The index is for markInterrupted.
        conditions += QStringLiteral("+status IN (") + marks.join(u',') + u')';
    }
    if (!query.language.isEmpty()) {
        conditions += QStringLiteral("language = ?");
        values->append(query.language);
    }
    if (!query.clientName.isEmpty()) {
        conditions += QStringLiteral("client_name LIKE ? ESCAPE '\\'");
        values->append(containsPattern(query.clientName));
    }
    if (query.exactClientName) {
        conditions += QStringLiteral("client_name = ?");
        values->append(HistoryDatabase::text(*query.exactClientName));
    }
    if (!query.sessionKey.isEmpty()) {
        conditions += QStringLiteral("session_key = ?");
        values->append(query.sessionKey);
    }
    if (!query.text.isEmpty()) {
        conditions += QStringLiteral("(code LIKE ? ESCAPE '\\' OR stdout_text LIKE ? ESCAPE '\\' "
                                     "OR stderr_text LIKE ? ESCAPE '\\')");
        const QString pattern = containsPattern(query.text);
        *values << pattern << pattern << pattern;
    }
    // A time range also bounds the ids, read off the started_at index (index entries only; named,
    // since SQLite would otherwise find min(id) by walking the whole table in id order): the
    // scan in id order then stops at the range's oldest run instead of reading the whole table
    // when fewer runs than the page's limit match. "+": the rows themselves are read in id
    // order, not through that index (which would read every run of a wide range, then sort).
    if (query.startedFrom.isValid()) {
        conditions += QStringLiteral("+started_at >= ? AND id >= (SELECT min(id) FROM runs "
                                     "INDEXED BY runs_started_at WHERE started_at >= ?)");
        *values << query.startedFrom.toMSecsSinceEpoch() << query.startedFrom.toMSecsSinceEpoch();
    }
    if (query.startedBefore.isValid()) {
        conditions += QStringLiteral("+started_at < ? AND id <= (SELECT max(id) FROM runs "
                                     "INDEXED BY runs_started_at WHERE started_at < ?)");
        *values << query.startedBefore.toMSecsSinceEpoch()
                << query.startedBefore.toMSecsSinceEpoch();
    }
    if (conditions.isEmpty())
        return {};
    return QStringLiteral(" WHERE ") + conditions.join(QStringLiteral(" AND "));
}

} // namespace

HistoryQueries::HistoryQueries(const HistoryDatabase& database)
    : m_database(database)
{}

Expected<QList<RunRecord>> HistoryQueries::select(const QString& sql,
                                                  const QVariantList& values) const
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    QSqlQuery query = m_database.query();
    query.prepare(sql);
    for (const QVariant& value : values)
        query.addBindValue(value);
    if (Expected<void> read = m_database.execute(query, "reading the history"); !read)
        return Unexpected(read.error());
    QList<RunRecord> runs;
    while (query.next())
        runs.append(readRun(query));
    if (query.lastError().isValid())
        return m_database.failure("reading the history", query.lastError());
    return runs;
}

Expected<QList<RunRecord>> HistoryQueries::list(const HistoryQuery& query) const
{
    QVariantList values;
    QString sql = selectColumns(query.includeContent, query.previewChars, query.stderrTailChars) +
                  whereClause(query, &values) + QStringLiteral(" ORDER BY id DESC");
    if (query.limit > 0 || query.offset > 0) {
        sql += QStringLiteral(" LIMIT ? OFFSET ?");
        values << (query.limit > 0 ? query.limit : -1) << qMax(query.offset, 0);
    }
    Expected<QList<RunRecord>> runs = select(sql, values);
    if (runs && query.includeContent) {
        if (Expected<void> files = addFiles(*runs); !files)
            return Unexpected(files.error());
    }
    return runs;
}

Expected<qint64> HistoryQueries::count(const HistoryQuery& query) const
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    QVariantList values;
    QSqlQuery select = m_database.query();
    select.prepare(QStringLiteral("SELECT count(*) FROM runs") + whereClause(query, &values));
    for (const QVariant& value : std::as_const(values))
        select.addBindValue(value);
    if (Expected<void> read = m_database.execute(select, "counting runs"); !read)
        return Unexpected(read.error());
    if (!select.next())
        return m_database.failure("counting runs", select.lastError());
    return select.value(0).toLongLong();
}

Expected<RunRecord> HistoryQueries::get(qint64 id) const
{
    Expected<QList<RunRecord>> runs =
        select(selectColumns(true, 0) + QStringLiteral(" WHERE id = ?"), {id});
    if (!runs)
        return Unexpected(runs.error());
    if (runs->isEmpty())
        return Unexpected(QStringLiteral("no run %1").arg(id));
    if (Expected<void> files = addFiles(*runs); !files)
        return Unexpected(files.error());
    Expected<QList<RunConnectionRecord>> connections = connectionsOf(id);
    if (!connections)
        return Unexpected(connections.error());
    RunRecord run = runs->takeFirst();
    run.connections = *std::move(connections);
    return run;
}

Expected<void> HistoryQueries::addFiles(QList<RunRecord>& runs) const
{
    // Only a run with a folder can have files: the others cost nothing.
    for (RunRecord& run : runs) {
        if (run.filesKey.isEmpty())
            continue;
        Expected<QList<RunFileRecord>> files = filesOf(run.id);
        if (!files)
            return Unexpected(files.error());
        run.files = *std::move(files);
    }
    return {};
}

Expected<QList<RunFileRecord>> HistoryQueries::filesOf(qint64 runId) const
{
    QSqlQuery query = m_database.query();
    query.prepare(QStringLiteral("SELECT direction, path, size_bytes, mime_type, stored_path, "
                                 "skip_reason FROM run_files WHERE run_id = ? ORDER BY ordinal"));
    query.addBindValue(runId);
    if (Expected<void> read = m_database.execute(query, "reading a run's files"); !read)
        return Unexpected(read.error());
    QList<RunFileRecord> files;
    while (query.next()) {
        RunFileRecord file;
        file.direction = query.value(0).toString() == QLatin1String("in")
                             ? RunFileRecord::Direction::Input
                             : RunFileRecord::Direction::Output;
        file.path = query.value(1).toString();
        file.sizeBytes = query.value(2).toLongLong();
        file.mimeType = query.value(3).toString();
        file.storedPath = query.value(4).toString();
        file.skipReason = query.value(5).toString();
        files.append(file);
    }
    return files;
}

Expected<QList<RunConnectionRecord>> HistoryQueries::connectionsOf(qint64 runId) const
{
    QSqlQuery query = m_database.query();
    query.prepare(QStringLiteral("SELECT host, port, allowed, reason, address, bytes_sent, "
                                 "bytes_received, started_at, duration_ms FROM run_connections "
                                 "WHERE run_id = ? ORDER BY ordinal"));
    query.addBindValue(runId);
    if (Expected<void> read = m_database.execute(query, "reading a run's connections"); !read)
        return Unexpected(read.error());
    QList<RunConnectionRecord> connections;
    while (query.next()) {
        RunConnectionRecord connection;
        connection.host = query.value(0).toString();
        connection.port = query.value(1).toInt();
        connection.allowed = query.value(2).toInt() != 0;
        connection.reason = query.value(3).toString();
        connection.address = query.value(4).toString();
        connection.bytesSent = query.value(5).toLongLong();
        connection.bytesReceived = query.value(6).toLongLong();
        connection.startedAt = QDateTime::fromMSecsSinceEpoch(query.value(7).toLongLong());
        connection.durationMs = query.value(8).toLongLong();
        connections.append(connection);
    }
    return connections;
}

Expected<QList<RunRecord>> HistoryQueries::changedSince(qint64 lastSeenChangeSeq, int limit,
                                                        int previewChars) const
{
    return select(selectColumns(false, previewChars) +
                      QStringLiteral(" WHERE change_seq > ? ORDER BY change_seq LIMIT ?"),
                  {lastSeenChangeSeq, limit > 0 ? limit : -1});
}

Expected<QStringList> HistoryQueries::clients() const
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    // A skip scan of the client name index: one index seek per distinct name, so it costs the
    // same with 100 runs as with 100,000 (a plain SELECT DISTINCT reads every index entry).
    QSqlQuery query = m_database.query();
    if (!query.exec(QStringLiteral(
            "WITH RECURSIVE names(name) AS (SELECT min(client_name) FROM runs UNION ALL SELECT "
            "(SELECT min(client_name) FROM runs WHERE client_name > names.name) FROM names "
            "WHERE names.name IS NOT NULL) SELECT name FROM names WHERE name IS NOT NULL")))
        return m_database.failure("listing the clients", query.lastError());
    QStringList names;
    while (query.next())
        names.append(query.value(0).toString());
    return names;
}

Expected<QList<HistoryInterpreterSession>> HistoryQueries::sessions(int limit) const
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    // Through the partial session index: one-shot runs cost nothing here.
    QSqlQuery query = m_database.query();
    query.prepare(QStringLiteral(
        "SELECT session_key, min(session_name), min(client_name), min(language), count(*), "
        "min(started_at), max(started_at) FROM runs WHERE session_key <> '' GROUP BY "
        "session_key ORDER BY max(id) DESC LIMIT ?"));
    query.addBindValue(limit > 0 ? limit : -1);
    if (!query.exec())
        return m_database.failure("listing the sessions", query.lastError());
    QList<HistoryInterpreterSession> sessions;
    while (query.next()) {
        HistoryInterpreterSession session;
        session.key = query.value(0).toString();
        session.name = query.value(1).toString();
        session.clientName = query.value(2).toString();
        session.language = query.value(3).toString();
        session.calls = query.value(4).toInt();
        session.firstStartedAt = HistoryDatabase::dateTime(query.value(5));
        session.lastStartedAt = HistoryDatabase::dateTime(query.value(6));
        sessions.append(session);
    }
    return sessions;
}

Expected<ActivityReport> HistoryQueries::activity(const ActivityQuery& query) const
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    Expected<ActivityReport> report = ActivityReader::read(m_database.connection(), query);
    if (!report)
        return Unexpected(QStringLiteral("reading the activity: %1").arg(report.error()));
    return report;
}

Expected<qint64> HistoryQueries::counter(const QString& sql, const char* what) const
{
    if (Expected<void> here = m_database.checkThread(); !here)
        return Unexpected(here.error());
    return m_database.readInteger(sql, what);
}

Expected<qint64> HistoryQueries::lastChangeSeq() const
{
    return counter(QStringLiteral("SELECT change_seq FROM counters WHERE id = 1"),
                   "reading the change counter");
}

Expected<qint64> HistoryQueries::deletionSeq() const
{
    return counter(QStringLiteral("SELECT delete_seq FROM counters WHERE id = 1"),
                   "reading the deletion counter");
}

} // namespace csm
