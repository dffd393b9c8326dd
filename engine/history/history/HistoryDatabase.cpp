#include "history/HistoryDatabase.h"

#include "core/Logging.h"
#include "core/RunFilesStore.h"
#include "core/UtcDateTime.h"
#include "history/HistorySchema.h"

#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QSqlError>
#include <QSqlQuery>
#include <QThread>
#include <QUuid>

#include <algorithm>

namespace csm {

namespace {

constexpr QLatin1String kDriver("QSQLITE");
// The WAL file is cut back to this size after a checkpoint; without a limit it keeps the
// largest size it ever reached (a burst of megabyte outputs).
constexpr qint64 kJournalSizeLimit = 32LL * 1024 * 1024;

// SQLITE_BUSY (5) and SQLITE_LOCKED (6): another process held the database past the timeout.
bool isBusy(const QSqlError& error)
{
    const QString code = error.nativeErrorCode();
    return code == QLatin1String("5") || code == QLatin1String("6");
}

QString describe(const QSqlError& error)
{
    if (isBusy(error))
        return QStringLiteral("the database stayed locked by another process past the busy "
                              "timeout (%1)")
            .arg(error.text());
    return error.text();
}

// Why `folder` cannot be created: the nearest part of it that exists is a file, or not writable.
QString folderFailure(const QString& folder)
{
    QFileInfo ancestor(folder);
    while (!ancestor.exists() && !ancestor.isRoot() &&
           ancestor.absolutePath() != ancestor.absoluteFilePath())
        ancestor.setFile(ancestor.absolutePath());
    const QString where = QDir::toNativeSeparators(ancestor.absoluteFilePath());
    if (ancestor.exists() && !ancestor.isDir())
        return QStringLiteral("cannot create the folder %1: %2 is a file, not a folder")
            .arg(QDir::toNativeSeparators(folder), where);
    return QStringLiteral("cannot create the folder %1 (is %2 writable?)")
        .arg(QDir::toNativeSeparators(folder), where);
}

// Creates `folder` (mode 0700, since the history holds code and outputs) and its parents.
Expected<void> ensureFolder(const QString& folder)
{
    const QFileInfo info(folder);
    if (info.isDir())
        return {};
    if (info.exists())
        return Unexpected(
            QStringLiteral("%1 is not a folder").arg(QDir::toNativeSeparators(folder)));
    const QString parent = info.absolutePath();
    if (!QDir().mkpath(parent))
        return Unexpected(folderFailure(parent));
    // Another process may create it at the same moment: that is fine too.
    if (QDir().mkdir(folder,
                     QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner) ||
        QFileInfo(folder).isDir())
        return {};
    return Unexpected(folderFailure(folder));
}

} // namespace

HistoryDatabase::HistoryDatabase(const QString& path)
    : m_path(path)
    , m_connectionName(QStringLiteral("csm-history-") +
                       QUuid::createUuid().toString(QUuid::WithoutBraces))
    , m_thread(QThread::currentThread())
{}

HistoryDatabase::~HistoryDatabase()
{
    // Statements first: a connection closes only once none is left on it.
    m_prepared.clear();
    if (m_db.isOpen())
        m_db.close();
    // The connection can only be removed once no QSqlDatabase refers to it any more.
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connectionName);
}

Expected<std::unique_ptr<HistoryDatabase>>
HistoryDatabase::open(const QString& path, const QList<HistoryMigration>& migrations)
{
    const QString shownPath = QDir::toNativeSeparators(path);
    const auto fail = [&](const QString& reason) {
        const QString message =
            QStringLiteral("Cannot open the run history %1: %2").arg(shownPath, reason);
        qCWarning(lcHistory).noquote() << message;
        return Unexpected(message);
    };

    if (path.isEmpty())
        return fail(QStringLiteral("no file name given"));
    for (qsizetype i = 0; i < migrations.size(); ++i) {
        if (migrations.at(i).version != i + 1)
            return fail(QStringLiteral("schema step %1 is numbered %2 (a bug)")
                            .arg(i + 1)
                            .arg(migrations.at(i).version));
    }
    if (migrations.isEmpty())
        return fail(QStringLiteral("no schema (a bug)"));

    const QFileInfo info(path);
    const QString filePath = info.absoluteFilePath();
    if (info.isDir())
        return fail(QStringLiteral("it is a folder"));
    if (const Expected<void> folder = ensureFolder(info.absolutePath()); !folder)
        return fail(folder.error());
    if (!info.exists()) {
        // Created here rather than by SQLite so that it is private from the start; SQLite gives
        // its -wal and -shm files the same mode.
        QFile file(filePath);
        if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly,
                       QFileDevice::ReadOwner | QFileDevice::WriteOwner) &&
            !QFileInfo::exists(filePath))
            return fail(QStringLiteral("cannot create the file: ") + file.errorString());
    }
    if (!QSqlDatabase::isDriverAvailable(kDriver))
        return fail(QStringLiteral("the Qt SQLite driver (QSQLITE) is not installed "
                                   "(on Debian: libqt6sql6-sqlite)"));

    // Opening a file sets its journal mode and may create or upgrade its schema, which need the
    // file to themselves: two processes doing it at once (the desktop app and its server, two
    // assistants' servers starting together) can each hold a read lock and want the write lock,
    // and SQLite refuses one of them at once instead of waiting, since waiting would deadlock.
    // So openers take turns, through a lock file beside the history that QLockFile frees when
    // its owner dies. Without it (a folder that holds no lock file), the retries below still get
    // through.
    QLockFile openerTurn(filePath + QStringLiteral(".opening"));
    openerTurn.setStaleLockTime(kOpenerTurnStale);
    if (!openerTurn.tryLock(static_cast<int>(kOpenerTurnWait.count())))
        qCWarning(lcHistory).noquote()
            << "opening" << shownPath
            << "without waiting for the other openers (lock file:" << openerTurn.error() << ")";

    // A file that another process keeps busy is tried again, with new connections, for a
    // while: a history that cannot be opened at once is never given up on at the first refusal
    // (an opener of an older build, which takes no turn, can still meet this one in that lock).
    const QDeadlineTimer retryUntil(kOpenRetryFor);
    std::unique_ptr<HistoryDatabase> database;
    for (int attempt = 1;; ++attempt) {
        database.reset(new HistoryDatabase(filePath));
        const Expected<void> initialized = database->initialize(migrations);
        if (initialized)
            break;
        if (!database->m_lastFailureWasBusy || retryUntil.hasExpired())
            return fail(initialized.error());
        if (attempt == 1)
            qCInfo(lcHistory).noquote() << "the run history" << shownPath
                                        << "is busy, trying again:" << initialized.error();
        database.reset();
        QThread::msleep(static_cast<unsigned long>(std::min(50 * attempt, 500)));
    }
    qCDebug(lcHistory).noquote() << "opened" << shownPath << "at schema version"
                                 << database->m_schemaVersion;
    return database;
}

Expected<void> HistoryDatabase::initialize(const QList<HistoryMigration>& migrations)
{
    m_db = QSqlDatabase::addDatabase(kDriver, m_connectionName);
    m_db.setDatabaseName(m_path);
    m_db.setConnectOptions(
        QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(kDefaultBusyTimeout.count()));
    if (!m_db.open())
        return Unexpected(m_db.lastError().text());
    if (Expected<void> timeout = setBusyTimeout(kDefaultBusyTimeout); !timeout)
        return timeout;

    // Look before touching anything: a file that is not ours, or is newer than this build, is
    // left exactly as it is. One read transaction, so that the three answers come from the same
    // snapshot even while another process is creating the schema.
    if (Expected<void> begun = execute(QStringLiteral("BEGIN"), "reading the schema"); !begun)
        return begun;
    const Expected<QList<qint64>> answers = readIntegers(
        {{QStringLiteral("PRAGMA application_id"), "reading the application id"},
         {QStringLiteral("PRAGMA user_version"), "reading the version"},
         {QStringLiteral("SELECT count(*) FROM sqlite_master"), "reading the schema"}});
    (void)execute(QStringLiteral("ROLLBACK"), "reading the schema");
    if (!answers)
        return Unexpected(answers.error());
    const qint64 applicationId = answers->at(0);
    const qint64 version = answers->at(1);
    const qint64 objects = answers->at(2);
    const int latest = migrations.constLast().version;
    if (version > latest)
        return Unexpected(QStringLiteral("it was written by a newer version of Code Sandbox "
                                         "(schema version %1; this version knows up to %2). It "
                                         "was left unchanged: update Code Sandbox, or use "
                                         "another file.")
                              .arg(version)
                              .arg(latest));
    // A file without tables or marks is new (SQLite makes empty files on any open).
    const bool fresh = objects == 0 && version == 0 && applicationId == 0;
    if (!fresh && applicationId != HistorySchema::kApplicationId)
        return Unexpected(
            QStringLiteral("it is not a Code Sandbox history database (another program's "
                           "SQLite file?). It was left unchanged."));

    // auto_vacuum only takes effect on a file without tables, and before the WAL switch writes
    // the file's first page; on an existing file it changes nothing.
    if (Expected<void> set =
            execute(QStringLiteral("PRAGMA auto_vacuum = INCREMENTAL"), "setting auto_vacuum");
        !set)
        return set;
    QSqlQuery journal(m_db);
    if (!journal.exec(QStringLiteral("PRAGMA journal_mode = WAL")) || !journal.next()) {
        m_lastFailureWasBusy = isBusy(journal.lastError());
        return Unexpected(QStringLiteral("cannot switch to WAL mode: ") +
                          describe(journal.lastError()));
    }
    const QString mode = journal.value(0).toString();
    journal.finish();
    // A file system without shared memory (some network file systems) keeps the rollback
    // journal: it still works, with writers and readers waiting for each other more.
    if (mode.compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0)
        qCWarning(lcHistory).noquote()
            << "the run history" << QDir::toNativeSeparators(m_path)
            << "cannot use WAL mode here (journal mode:" << mode << "); it will be slower";
    for (const auto& [sql, what] :
         {std::pair{QStringLiteral("PRAGMA synchronous = NORMAL"), "setting synchronous"},
          std::pair{QStringLiteral("PRAGMA foreign_keys = ON"), "setting foreign_keys"},
          std::pair{QStringLiteral("PRAGMA journal_size_limit = %1").arg(kJournalSizeLimit),
                    "setting journal_size_limit"}}) {
        if (Expected<void> set = execute(sql, what); !set)
            return set;
    }
    return migrate(migrations);
}

Expected<void> HistoryDatabase::migrate(const QList<HistoryMigration>& migrations)
{
    const int latest = migrations.constLast().version;
    // One transaction per step, and the version read again inside it: several processes may
    // open a new or old file at the same moment, and each step must run exactly once. A new
    // file gets every step in one transaction: it is created at the latest version, not
    // upgraded through the older ones.
    for (;;) {
        if (Expected<void> begun =
                execute(QStringLiteral("BEGIN IMMEDIATE"), "starting a schema upgrade");
            !begun)
            return begun;
        const auto version =
            readInteger(QStringLiteral("PRAGMA user_version"), "reading the version");
        if (!version || *version > latest || *version == latest) {
            (void)execute(QStringLiteral("ROLLBACK"), "ending a schema check");
            if (!version)
                return Unexpected(version.error());
            if (*version > latest)
                return Unexpected(
                    QStringLiteral("another process upgraded it to schema version %1, "
                                   "newer than this version of Code Sandbox knows (%2)")
                        .arg(*version)
                        .arg(latest));
            m_schemaVersion = static_cast<int>(*version);
            return {};
        }
        const bool creating = *version == 0;
        const auto first = static_cast<qsizetype>(*version);
        const qsizetype last = creating ? migrations.size() - 1 : first;
        const HistoryMigration& target = migrations.at(last);
        const char* what = creating ? "creating the schema" : "upgrading the schema";
        Expected<void> applied;
        for (qsizetype i = first; applied && i <= last; ++i) {
            for (const QString& statement : migrations.at(i).statements) {
                applied = execute(statement, what);
                if (!applied)
                    break;
            }
        }
        if (applied)
            applied = execute(QStringLiteral("PRAGMA user_version = %1").arg(target.version),
                              "setting the version");
        if (applied)
            applied = execute(QStringLiteral("COMMIT"), "committing a schema upgrade");
        if (!applied) {
            const QString failure = applied.error();
            (void)execute(QStringLiteral("ROLLBACK"), "undoing a schema upgrade");
            if (creating)
                return Unexpected(
                    QStringLiteral("creating the schema (version %1) failed, the file was left "
                                   "empty: %2")
                        .arg(target.version)
                        .arg(failure));
            return Unexpected(
                QStringLiteral("upgrading the schema to version %1 (%2) failed, the file "
                               "was left at version %3: %4")
                    .arg(target.version)
                    .arg(target.description)
                    .arg(*version)
                    .arg(failure));
        }
        qCInfo(lcHistory).noquote()
            << (creating ? "created the run history" : "upgraded the run history")
            << QDir::toNativeSeparators(m_path)
            << (creating ? "at schema version" : "to schema version") << target.version;
    }
}

Expected<void> HistoryDatabase::setBusyTimeout(std::chrono::milliseconds timeout)
{
    if (Expected<void> here = checkThread(); !here)
        return here;
    if (Expected<void> set =
            execute(QStringLiteral("PRAGMA busy_timeout = %1").arg(timeout.count()),
                    "setting the busy timeout");
        !set)
        return set;
    m_busyTimeout = timeout;
    return {};
}

Expected<void> HistoryDatabase::checkThread() const
{
    if (QThread::currentThread() == m_thread)
        return {};
    // QtSql connections must stay on their thread; refusing beats corrupting its state.
    const QString message = QStringLiteral("the run history was used from another thread than "
                                           "the one that opened it");
    qCCritical(lcHistory).noquote() << message;
    return Unexpected(message);
}

QString HistoryDatabase::filesRoot() const
{
    return RunFilesStore::rootIn(QFileInfo(m_path).absolutePath());
}

QSqlQuery HistoryDatabase::query() const
{
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    return query;
}

Expected<QSqlQuery*> HistoryDatabase::prepared(const QString& sql, const char* what)
{
    std::unique_ptr<QSqlQuery>& kept = m_prepared[sql];
    if (!kept) {
        auto statement = std::make_unique<QSqlQuery>(query());
        if (!statement->prepare(sql)) {
            m_prepared.erase(sql);
            return failure(what, statement->lastError());
        }
        kept = std::move(statement);
    }
    return kept.get();
}

Unexpected HistoryDatabase::failure(const char* what, const QSqlError& error) const
{
    const QString message = QStringLiteral("%1: %2").arg(QLatin1String(what), describe(error));
    m_lastFailureWasBusy = isBusy(error);
    qCWarning(lcHistory).noquote()
        << "run history" << QDir::toNativeSeparators(m_path) << "-" << message;
    return Unexpected(message);
}

Expected<void> HistoryDatabase::execute(QSqlQuery& query, const char* what) const
{
    if (query.exec())
        return {};
    return failure(what, query.lastError());
}

Expected<void> HistoryDatabase::execute(const QString& sql, const char* what) const
{
    QSqlQuery query(m_db);
    if (query.exec(sql))
        return {};
    return failure(what, query.lastError());
}

Expected<qint64> HistoryDatabase::readInteger(const QString& sql, const char* what) const
{
    QSqlQuery query = this->query();
    if (!query.exec(sql))
        return failure(what, query.lastError());
    if (!query.next())
        return Unexpected(QStringLiteral("%1: no result").arg(QLatin1String(what)));
    return query.value(0).toLongLong();
}

Expected<void> HistoryDatabase::write(const char* what, const std::function<Expected<void>()>& body)
{
    // IMMEDIATE takes the write lock up front (waiting up to the busy timeout): a deferred
    // transaction that reads first could fail at its first write without waiting at all.
    if (Expected<void> begun = executePrepared(QStringLiteral("BEGIN IMMEDIATE"), what); !begun)
        return begun;
    Expected<void> done = body();
    if (done)
        done = executePrepared(QStringLiteral("COMMIT"), what);
    if (!done) {
        QSqlQuery rollback(m_db);
        rollback.exec(QStringLiteral("ROLLBACK")); // fails harmlessly when SQLite rolled back
    }
    return done;
}

Expected<qint64> HistoryDatabase::nextChangeSeq()
{
    const char* what = "counting a change";
    if (Expected<void> counted = executePrepared(
            QStringLiteral("UPDATE counters SET change_seq = change_seq + 1 WHERE id = 1"), what);
        !counted)
        return Unexpected(counted.error());
    const Expected<QSqlQuery*> read =
        prepared(QStringLiteral("SELECT change_seq FROM counters WHERE id = 1"), what);
    if (!read)
        return Unexpected(read.error());
    QSqlQuery& seq = **read;
    if (!seq.exec())
        return failure(what, seq.lastError());
    if (!seq.next())
        return Unexpected(QStringLiteral("%1: no result").arg(QLatin1String(what)));
    const qint64 value = seq.value(0).toLongLong();
    seq.finish();
    return value;
}

Expected<void> HistoryDatabase::executePrepared(const QString& sql, const char* what)
{
    const Expected<QSqlQuery*> statement = prepared(sql, what);
    if (!statement)
        return Unexpected(statement.error());
    return execute(**statement, what);
}

Expected<void> HistoryDatabase::bumpDeletionSeq()
{
    return execute(QStringLiteral("UPDATE counters SET delete_seq = delete_seq + 1 WHERE id = 1"),
                   "counting a deletion");
}

Expected<QList<qint64>>
HistoryDatabase::readIntegers(const QList<std::pair<QString, const char*>>& reads) const
{
    QList<qint64> values;
    values.reserve(reads.size());
    for (const auto& [sql, what] : reads) {
        const Expected<qint64> value = readInteger(sql, what);
        if (!value)
            return Unexpected(value.error());
        values.append(*value);
    }
    return values;
}

Expected<qint64> HistoryDatabase::usedBytes() const
{
    const char* what = "measuring the history";
    const Expected<QList<qint64>> pages =
        readIntegers({{QStringLiteral("PRAGMA page_count"), what},
                      {QStringLiteral("PRAGMA freelist_count"), what},
                      {QStringLiteral("PRAGMA page_size"), what}});
    if (!pages)
        return Unexpected(pages.error());
    return (pages->at(0) - pages->at(1)) * pages->at(2);
}

QVariant HistoryDatabase::text(const QString& value)
{
    return value.isNull() ? QVariant(QStringLiteral("")) : QVariant(value);
}

QDateTime HistoryDatabase::dateTime(const QVariant& value)
{
    if (value.isNull())
        return {};
    return utcFromMSecsSinceEpoch(value.toLongLong());
}

} // namespace csm
