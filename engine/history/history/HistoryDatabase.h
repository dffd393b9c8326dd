#pragma once

#include "core/Expected.h"
#include "history/HistoryMigration.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>
#include <QVariant>

#include <chrono>
#include <functional>
#include <map>
#include <memory>

class QDateTime;
class QSqlError;
class QSqlQuery;
class QThread;

namespace csm {

// The one SQLite connection the parts of the run history share (RunLedger, HistoryQueries,
// HistoryRetention, StopRequests): opening and upgrading the file, and the statements and
// transactions they are made of, each failure returned as the reason a person reads.
//
// Concurrency: the file is in WAL mode, so readers never block writers nor each other. Every
// write is one short `BEGIN IMMEDIATE` transaction; a writer waits up to the busy timeout
// (5 s by default) for another one to finish, then gives up: the call fails, says why, logs it in
// `csm.history`, and the database stays as it was.
//
// Threads: the connection is uniquely named and may be used only on the thread that opened it,
// and destroyed there; a call from another thread fails instead of corrupting it.
class HistoryDatabase final
{
public:
    static constexpr std::chrono::milliseconds kDefaultBusyTimeout{5000};

    // Opens `path` (its folder made 0700, the file 0600, as needed) and brings its schema to the
    // last of `migrations`. Fails, saying which file and why, when the folder or file cannot be
    // created, the file is not a SQLite database or is another program's, or it was written by a
    // newer version of Code Sandbox (left untouched then).
    static Expected<std::unique_ptr<HistoryDatabase>>
    open(const QString& path, const QList<HistoryMigration>& migrations);

    ~HistoryDatabase();
    Q_DISABLE_COPY_MOVE(HistoryDatabase)

    QString path() const { return m_path; }
    // The folder of the runs' files (RunFilesStore) beside the file.
    QString filesRoot() const;
    int schemaVersion() const { return m_schemaVersion; }

    std::chrono::milliseconds busyTimeout() const { return m_busyTimeout; }
    Expected<void> setBusyTimeout(std::chrono::milliseconds timeout);

    // Fails when called from another thread than the one that opened the file.
    Expected<void> checkThread() const;

    // A query on this connection, forward only.
    QSqlQuery query() const;
    // `sql` prepared once on this connection and kept for the next time: the statements every
    // call runs (a run's start and end, BEGIN and COMMIT, the change counter) would otherwise be
    // parsed each time, which costs SQLite more than running them. Bind its values anew before
    // each exec(); finish() a read when done with it. Valid as long as this object is.
    Expected<QSqlQuery*> prepared(const QString& sql, const char* what);
    Expected<void> execute(QSqlQuery& query, const char* what) const;
    Expected<void> execute(const QString& sql, const char* what) const;
    Expected<qint64> readInteger(const QString& sql, const char* what) const;
    // Several readInteger()s, each with what it is for; the first that fails says why.
    Expected<QList<qint64>> readIntegers(const QList<std::pair<QString, const char*>>& reads) const;
    // "what: why" of a failed statement, logged.
    Unexpected failure(const char* what, const QSqlError& error) const;

    // Runs `body` in a write transaction; rolls back when it fails or COMMIT does.
    Expected<void> write(const char* what, const std::function<Expected<void>()>& body);

    // Inside a write: the next value of the change counter (every insert and update of a run
    // takes one), and one more deletion.
    Expected<qint64> nextChangeSeq();
    Expected<void> bumpDeletionSeq();
    // The bytes of the pages in use, free pages not counted.
    Expected<qint64> usedBytes() const;

    // A text column's value: QtSql binds a null QString as SQL NULL, and the text columns are
    // NOT NULL.
    static QVariant text(const QString& value);
    // A time column's value (milliseconds since the epoch, UTC), null for null.
    static QDateTime dateTime(const QVariant& value);

    // The underlying connection, for readers that build their own statements (ActivityReader).
    const QSqlDatabase& connection() const { return m_db; }

private:
    // How long open() waits for another process opening the same file, and after how long an
    // opener's lock file counts as left behind (opening takes milliseconds).
    static constexpr std::chrono::milliseconds kOpenerTurnWait{30000};
    static constexpr std::chrono::milliseconds kOpenerTurnStale{60000};
    // How long open() keeps trying a file that stays busy.
    static constexpr std::chrono::milliseconds kOpenRetryFor{20000};

    explicit HistoryDatabase(const QString& path);

    Expected<void> initialize(const QList<HistoryMigration>& migrations);
    Expected<void> migrate(const QList<HistoryMigration>& migrations);
    // A statement without values, prepared() once.
    Expected<void> executePrepared(const QString& sql, const char* what);

    QString m_path;
    QString m_connectionName;
    QSqlDatabase m_db;
    QThread* m_thread = nullptr;
    // prepared()'s statements, by their SQL (each at a fixed address while it is used).
    std::map<QString, std::unique_ptr<QSqlQuery>> m_prepared;
    int m_schemaVersion = 0;
    std::chrono::milliseconds m_busyTimeout = kDefaultBusyTimeout;
    // Whether the last failure was SQLite's "busy" or "locked": open() tries those again.
    mutable bool m_lastFailureWasBusy = false;
};

} // namespace csm
