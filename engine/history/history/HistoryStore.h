#pragma once

#include "core/Expected.h"
#include "history/ActivityReport.h"
#include "history/HistoryInterpreterSession.h"
#include "history/HistoryMigration.h"
#include "history/HistoryQuery.h"
#include "history/RetentionPolicy.h"
#include "history/RunRecord.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

class QSqlError;
class QSqlQuery;
class QThread;

namespace csm {

// The run history: every tool call of every Code Sandbox process of this user (headless servers
// and the desktop app alike) in one SQLite file, written and read by all of them at once.
//
// Concurrency: the file is in WAL mode, so readers never block writers nor each other. Every
// write is one short `BEGIN IMMEDIATE` transaction; a writer waits up to the busy timeout
// (5 s by default) for another one to finish, then gives up: the call fails, says why in
// lastError() and in the `csm.history` log, and the database stays as it was.
//
// Threads: a store holds its own database connection (uniquely named) and may be used only on
// the thread that opened it, and destroyed there. Calls block: a write usually takes well under
// a millisecond, but can wait for the busy timeout, so a GUI thread may want a shorter one.
//
// Errors: a failed call returns its failure value (nullopt, false, -1 or an empty list), and
// lastError() says what went wrong; after a call that succeeded lastError() is empty.
class HistoryStore final
{
public:
    static constexpr std::chrono::milliseconds kDefaultBusyTimeout{5000};
    // What recordOutput waits at most for another writer: it skips an update rather than hold up
    // the server.
    static constexpr std::chrono::milliseconds kLiveOutputBusyTimeout{50};

    // <GenericDataLocation>/code-sandbox/history.sqlite, e.g.
    // ~/.local/share/code-sandbox/history.sqlite: shared by the app and the headless server
    // whatever their application names.
    static QString defaultPath();

    // Opens the history at `path`, creating its folder (mode 0700) and file (0600) as needed,
    // and brings the schema up to date. Fails, saying which file and why, when the
    // folder or file cannot be created, the file is not a SQLite database or is another
    // program's, or it was written by a newer version of Code Sandbox (left untouched then).
    static Expected<std::unique_ptr<HistoryStore>> open(const QString& path);
    // The same with the schema steps to apply instead of HistorySchema::migrations(): for tests
    // of the migration mechanism.
    static Expected<std::unique_ptr<HistoryStore>> open(const QString& path,
                                                        const QList<HistoryMigration>& migrations);

    ~HistoryStore();
    Q_DISABLE_COPY_MOVE(HistoryStore)

    QString path() const { return m_path; }
    // The folder of the runs' files (RunFilesStore) beside the history file: deleting a run
    // (remove, prune) removes its folder there too.
    QString filesRoot() const;
    // The schema version of the file (PRAGMA user_version), once open() has upgraded it.
    int schemaVersion() const { return m_schemaVersion; }
    QString lastError() const { return m_lastError; }
    // How long a call waits for another process's write to finish before it fails.
    bool setBusyTimeout(std::chrono::milliseconds timeout);

    // --- Writes: each is one transaction, applied entirely or not at all.

    // Inserts a run as `running` (status, endedAt, id and changeSeq of `run` are ignored; a null
    // startedAt means now), with its filesKey and its input files (those of `files`). Returns
    // the new run's id.
    std::optional<qint64> recordStart(const RunRecord& run);
    // Ends run `id`: stores status (which must be final), stdout/stderr and their truncation
    // flags, exitCode, durationMs, endedAt (null means now), errorMessage and the output files
    // (those of `files`; outputFileCount counts the ones without a skip reason) of `finished`.
    // A run already marked interrupted is ended all the same: its real end wins. False when
    // the run does not exist (any more) or the write failed.
    bool recordEnd(qint64 id, const RunRecord& finished);
    // While run `id` runs: what it has printed so far (its server's redacted view of it, e.g.
    // the tail of each stream), for live views in any process; the run's end replaces it. False
    // when the run is not running (any more) or the write failed, for one thing because another
    // process held the file for more than kLiveOutputBusyTimeout.
    bool recordOutput(qint64 id, const QString& stdoutText, const QString& stderrText);
    // Asks the server of running run `id` to stop it, as its client's cancellation would (the
    // server looks for requests with takeStopRequests). False when the run is not running.
    bool requestStop(qint64 id);
    // The runs among `runningIds` someone asked to stop (requestStop), each handed out once.
    // An empty list on failure too (lastError() then says why).
    QList<qint64> takeStopRequests(const QList<qint64>& runningIds);
    // Every run still `running` on `hostName` whose server is gone becomes `interrupted`, ended
    // now. `isServerAlive` is asked once per server pid (outside any transaction); pass
    // ProcessProbe::isCodeSandboxProcessAlive. A pid reused by a new server does not catch its
    // runs: runs are matched by server pid and server instance. Returns how many runs were
    // marked, or -1 when the write failed.
    int markInterrupted(const QString& hostName,
                        const std::function<bool(qint64 pid)>& isServerAlive);
    // Deletes these runs (ids that do not exist are ignored), running ones included.
    bool remove(const QList<qint64>& ids);
    // Deletes ended runs beyond the newest policy.maxRuns and those started more than
    // policy.maxAgeDays ago, then the oldest ended runs while the database holds more than
    // policy.maxTotalBytes (see contentBytes()), in transactions of a few hundred rows so that
    // other processes' writes are never held up for long. Running runs are never deleted.
    // Returns how many were deleted (lastError() is set when it had to stop early).
    int prune(const RetentionPolicy& policy);
    // Only the size part of prune(): cheap (three small reads) while the database is within
    // `maxBytes`, which it is nearly always; for a check after every recorded run.
    int pruneToSize(qint64 maxBytes);
    // Removes the oldest runs' folders from filesRoot() while the runs' files add up to more
    // than `maxBytes` (<= 0: no limit), never those of running runs. The runs stay; their
    // files' storedPath then names a file that is gone. Returns how many folders went, and
    // what the files add up to after in `bytesLeft` (left alone when nothing was walked: no
    // limit, or the runs still running could not be read).
    int pruneFiles(qint64 maxBytes, qint64* bytesLeft = nullptr);
    // Gives the space of deleted runs back to the file system when there is a lot of it, a
    // chunk at a time. Returns how many pages (of 4 KiB) were released.
    int vacuumIfWorthIt();
    // Makes a file created without incremental auto-vacuum (by an old build or another SQLite
    // tool) able to shrink: sets it and rewrites the file (VACUUM), which keeps every other
    // process from writing until it is done, so only an explicit `history prune` asks for it.
    // True when the file has it now (or had it already).
    bool enableIncrementalVacuum();

    // --- Reads: each sees one consistent snapshot of the database.

    // Runs matching `query`, newest first; with their files when query.includeContent.
    QList<RunRecord> list(const HistoryQuery& query) const;
    // How many runs match `query` (its limit and offset are ignored), or -1 on failure.
    qint64 count(const HistoryQuery& query) const;
    // The bytes of the database's pages in use, indexes included, free pages not counted: what
    // RetentionPolicy::maxTotalBytes limits. The file itself is about that big, plus its free
    // pages, which new runs fill first. -1 on failure.
    qint64 contentBytes() const;
    // One run, in full, its files included (the only read that loads them).
    std::optional<RunRecord> get(qint64 id) const;
    // The distinct client names of the runs, sorted (byte order), the empty name included when
    // some run has none. Cheap whatever the number of runs: one index seek per name.
    QStringList clients() const;
    // The persistent sessions that have cells in the history, the most recently used first, at
    // most `limit`: for choosing one to show (HistoryQuery::sessionKey) or export.
    QList<HistoryInterpreterSession> sessions(int limit = 50) const;

    // Calls per interval by client and by outcome, and duration percentiles, over a stretch of
    // time (ActivityReader): aggregated in SQL, cheap at 100,000 runs. Nullopt on failure.
    std::optional<ActivityReport> activity(const ActivityQuery& query) const;

    // For a live view in any process: the runs inserted or updated since the change
    // `lastSeenChangeSeq`, oldest change first, at most `limit` of them, with code and outputs cut
    // to `previewChars` characters (get() loads a run in full). Every insert and update of a run
    // gives it the next value of one counter, in the same transaction, so the values grow in
    // commit order: a reader that keeps the changeSeq of the last run it received and asks again
    // with it misses nothing and gets nothing twice (a run updated again comes back with its new
    // state). Start with 0, or with lastChangeSeq() to skip what is already there. Deleted runs
    // do not show up here: watch deletionSeq() for those.
    QList<RunRecord> changedSince(qint64 lastSeenChangeSeq, int limit = 500,
                                  int previewChars = 200) const;
    // The changeSeq of the latest insert or update (0 for none), or -1 on failure.
    qint64 lastChangeSeq() const;
    // Grows whenever runs are deleted (remove, prune): a view that sees it change reloads.
    // -1 on failure.
    qint64 deletionSeq() const;

private:
    // How long open() waits for another process opening the same file, and after how long an
    // opener's lock file counts as left behind (opening takes milliseconds).
    static constexpr std::chrono::milliseconds kOpenerTurnWait{30000};
    static constexpr std::chrono::milliseconds kOpenerTurnStale{60000};
    // How long open() keeps trying a file that stays busy.
    static constexpr std::chrono::milliseconds kOpenRetryFor{20000};

    explicit HistoryStore(const QString& path);

    Expected<void> initialize(const QList<HistoryMigration>& migrations);
    Expected<void> migrate(const QList<HistoryMigration>& migrations);
    bool onOwnerThread() const;

    // Runs `body` in a write transaction; rolls back when it returns false or COMMIT fails.
    bool write(const char* what, const std::function<bool()>& body);
    // Sets lastError() to "what: why" (and whether SQLite said busy), and logs it.
    void failQuery(const char* what, const QSqlError& error) const;
    bool execute(QSqlQuery& query, const char* what) const;
    bool execute(const QString& sql, const char* what) const;
    std::optional<qint64> readInteger(const QString& sql, const char* what) const;
    std::optional<qint64> autoVacuumMode() const;
    std::optional<qint64> usedBytes() const;
    bool pruneByCountAndAge(const RetentionPolicy& policy, int* total);
    bool pruneBySize(qint64 maxBytes, int* total);
    std::optional<qint64> nextChangeSeq();
    bool bumpDeletionSeq();
    // A run that ended needs no stop any more: its request (if any) goes, in the same write.
    bool dropStopRequest(qint64 runId, const char* what);
    bool insertFiles(qint64 runId, const QList<RunFileRecord>& files,
                     RunFileRecord::Direction direction);
    QList<RunFileRecord> filesOf(qint64 runId) const;
    bool insertConnections(qint64 runId, const QList<RunConnectionRecord>& connections);
    QList<RunConnectionRecord> connectionsOf(qint64 runId) const;
    void addFiles(QList<RunRecord>& runs) const;
    // Notes the files keys of the runs matching `condition` (an SQL condition on runs with `?`
    // for `values`), which are about to be deleted in the current transaction.
    bool collectFilesKeys(const QString& condition, const QVariantList& values);
    // After a deleting transaction: removes the noted runs' folders if it committed.
    void finishDeletion(bool committed);
    void removeDeletedRunsFiles();
    QList<RunRecord> select(const QString& sql, const QVariantList& values) const;
    void setError(const QString& message) const;

    QString m_path;
    QString m_connectionName;
    QSqlDatabase m_db;
    QThread* m_thread = nullptr;
    int m_schemaVersion = 0;
    std::chrono::milliseconds m_busyTimeout = kDefaultBusyTimeout;
    mutable QString m_lastError;
    // Whether m_lastError came from SQLite's "busy" or "locked": open() tries those again.
    mutable bool m_lastErrorWasBusy = false;
    QStringList m_deletedFilesKeys;
};

} // namespace csm
