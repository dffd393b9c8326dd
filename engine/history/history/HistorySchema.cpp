#include "history/HistorySchema.h"

namespace csm {

namespace {

// Version 1. Times are integer milliseconds since the epoch (UTC); limits is a JSON object;
// texts are UTF-8. change_seq comes from the single row of `counters`, bumped in the same
// transaction as every insert and update of a run, so it grows in commit order and a reader in
// another process can fetch exactly what changed since it last looked (see
// HistoryStore::changedSince). AUTOINCREMENT: ids of deleted runs are never handed out again,
// so an id seen by a monitor never comes to mean another run.
HistoryMigration version1()
{
    return {
        .version = 1,
        .description = QStringLiteral("runs, counters and their indexes"),
        .statements =
            {
                QStringLiteral("PRAGMA application_id = %1").arg(HistorySchema::kApplicationId),
                QStringLiteral(R"(CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    change_seq INTEGER NOT NULL,
    server_instance TEXT NOT NULL DEFAULT '',
    server_pid INTEGER NOT NULL DEFAULT 0,
    host_name TEXT NOT NULL DEFAULT '',
    transport TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL DEFAULT '',
    client_name TEXT NOT NULL DEFAULT '',
    client_version TEXT NOT NULL DEFAULT '',
    tool TEXT NOT NULL DEFAULT '',
    language TEXT NOT NULL DEFAULT '',
    image TEXT NOT NULL DEFAULT '',
    code TEXT NOT NULL DEFAULT '',
    limits TEXT NOT NULL DEFAULT '{}',
    stdout_text TEXT NOT NULL DEFAULT '',
    stderr_text TEXT NOT NULL DEFAULT '',
    stdout_truncated INTEGER NOT NULL DEFAULT 0,
    stderr_truncated INTEGER NOT NULL DEFAULT 0,
    exit_code INTEGER,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    error_message TEXT NOT NULL DEFAULT ''
))"),
                QStringLiteral(R"(CREATE TABLE counters (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    change_seq INTEGER NOT NULL,
    delete_seq INTEGER NOT NULL
))"),
                QStringLiteral(
                    "INSERT INTO counters (id, change_seq, delete_seq) VALUES (1, 0, 0)"),
                QStringLiteral("CREATE UNIQUE INDEX runs_change_seq ON runs (change_seq)"),
                QStringLiteral("CREATE INDEX runs_started_at ON runs (started_at)"),
                // status first: filters by status, and markInterrupted's "running on this host".
                QStringLiteral("CREATE INDEX runs_status ON runs (status, host_name)"),
                QStringLiteral("CREATE INDEX runs_client_name ON runs (client_name)"),
            },
    };
}

// Version 2: the files that went into a run and came out of it (issue 16). files_key names the
// run's folder of RunFilesStore; output_file_count (the outputs that came back) lets the Runs
// table mark runs with files without reading run_files. A run's files go with it (ON DELETE
// CASCADE: HistoryStore turns foreign keys on for every connection).
HistoryMigration version2()
{
    return {
        .version = 2,
        .description = QStringLiteral("run files"),
        .statements =
            {
                QStringLiteral("ALTER TABLE runs ADD COLUMN files_key TEXT NOT NULL DEFAULT ''"),
                QStringLiteral(
                    "ALTER TABLE runs ADD COLUMN output_file_count INTEGER NOT NULL DEFAULT 0"),
                QStringLiteral(R"(CREATE TABLE run_files (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
    path TEXT NOT NULL,
    size_bytes INTEGER NOT NULL DEFAULT 0,
    mime_type TEXT NOT NULL DEFAULT '',
    stored_path TEXT NOT NULL DEFAULT '',
    skip_reason TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (run_id, ordinal)
))"),
            },
    };
}

// Version 3: persistent sessions (issue 17). session_name is the name the model gave;
// session_key tells apart the sessions that had the same name one after another (a new
// interpreter each time), so that a session's cells can be listed in order; cell_number is the
// cell's place in its session, 0 for a call that never ran as a cell (refused) or not in one.
HistoryMigration version3()
{
    return {
        .version = 3,
        .description = QStringLiteral("session cells"),
        .statements =
            {
                QStringLiteral("ALTER TABLE runs ADD COLUMN session_name TEXT NOT NULL DEFAULT ''"),
                QStringLiteral("ALTER TABLE runs ADD COLUMN session_key TEXT NOT NULL DEFAULT ''"),
                QStringLiteral(
                    "ALTER TABLE runs ADD COLUMN cell_number INTEGER NOT NULL DEFAULT 0"),
                // Partial: most runs are one-shot and need no entry.
                QStringLiteral("CREATE INDEX runs_session_key ON runs (session_key, id) "
                               "WHERE session_key <> ''"),
            },
    };
}

// Version 4 (issue 19): the desktop app's Stop, and its Activity page. A process that shows a
// run it does not serve asks the run's server to stop it through stop_requests: the server looks
// for requests for its running runs a few times a second and cancels them. A request goes with
// its run's end (or the run itself, ON DELETE CASCADE). runs_activity covers what the activity
// charts aggregate, so that a month of runs is read from the index alone, not from the rows
// (which hold the code and output: a month's rows are a hundred megabytes).
HistoryMigration version4()
{
    return {
        .version = 4,
        .description = QStringLiteral("stop requests, activity index"),
        .statements =
            {
                QStringLiteral(R"(CREATE TABLE stop_requests (
    run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    requested_at INTEGER NOT NULL
))"),
                QStringLiteral(
                    "CREATE INDEX runs_activity ON runs (started_at, client_name, status, "
                    "duration_ms)"),
            },
    };
}

// Version 5 (issue 18): the connections a run's program made through the egress proxy, in the
// order they ended, with the policy's reason for each; they go with their run.
HistoryMigration version5()
{
    return {
        .version = 5,
        .description = QStringLiteral("run connections"),
        .statements =
            {
                QStringLiteral(R"(CREATE TABLE run_connections (
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    host TEXT NOT NULL,
    port INTEGER NOT NULL,
    allowed INTEGER NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    address TEXT NOT NULL DEFAULT '',
    bytes_sent INTEGER NOT NULL DEFAULT 0,
    bytes_received INTEGER NOT NULL DEFAULT 0,
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (run_id, ordinal)
))"),
            },
    };
}

// Version 6: how many connections a run made past the ones its record keeps (a run's first
// 1,000 are listed), so that the app and the model can say so.
HistoryMigration version6()
{
    return {
        .version = 6,
        .description = QStringLiteral("connections not listed"),
        .statements =
            {
                QStringLiteral("ALTER TABLE runs ADD COLUMN connections_not_listed INTEGER NOT "
                               "NULL DEFAULT 0"),
            },
    };
}

} // namespace

const QList<HistoryMigration>& HistorySchema::migrations()
{
    // Append version 7 here.
    static const QList<HistoryMigration> all{version1(), version2(), version3(),
                                             version4(), version5(), version6()};
    return all;
}

int HistorySchema::latestVersion()
{
    return migrations().constLast().version;
}

} // namespace csm
