#include "history/HistoryStore.h"

#include "core/Logging.h"
#include "core/RunFilesStore.h"
#include "history/ActivityReader.h"
#include "history/HistorySchema.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLockFile>
#include <QScopeGuard>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QThread>
#include <QUuid>

#include <algorithm>

namespace csm {

namespace {

constexpr QLatin1String kDriver("QSQLITE");
// Rows a prune or remove deletes per statement: a few hundred keeps each transaction short.
constexpr int kDeleteBatch = 500;
// The WAL file is cut back to this size after a checkpoint; without a limit it keeps the
// largest size it ever reached (a burst of megabyte outputs).
constexpr qint64 kJournalSizeLimit = 32LL * 1024 * 1024;
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

QString selectColumns(bool includeContent, int previewChars)
{
    return QStringLiteral("SELECT id, change_seq, server_instance, server_pid, host_name, "
                          "transport, session_id, client_name, client_version, tool, language, "
                          "image, ") +
           contentColumn(QStringLiteral("code"), includeContent, previewChars) +
           QStringLiteral(", limits, ") +
           contentColumn(QStringLiteral("stdout_text"), includeContent, previewChars) +
           QStringLiteral(", ") +
           contentColumn(QStringLiteral("stderr_text"), includeContent, previewChars) +
           QStringLiteral(
               ", stdout_truncated, stderr_truncated, exit_code, duration_ms, status, "
               "started_at, ended_at, error_message, files_key, output_file_count, session_name, "
               "session_key, cell_number, connections_not_listed FROM runs");
}

QDateTime fromMs(const QVariant& value)
{
    if (value.isNull())
        return {};
    return QDateTime::fromMSecsSinceEpoch(value.toLongLong(), Qt::UTC);
}

// QtSql binds a null QString as SQL NULL; the text columns are NOT NULL.
QVariant text(const QString& value)
{
    return value.isNull() ? QVariant(QStringLiteral("")) : QVariant(value);
}

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

QString limitsText(const QJsonObject& limits)
{
    return QString::fromUtf8(QJsonDocument(limits).toJson(QJsonDocument::Compact));
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
    run.startedAt = fromMs(query.value(ColStartedAt));
    run.endedAt = fromMs(query.value(ColEndedAt));
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
        values->append(text(*query.exactClientName));
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

HistoryStore::HistoryStore(const QString& path)
    : m_path(path)
    , m_connectionName(QStringLiteral("csm-history-") +
                       QUuid::createUuid().toString(QUuid::WithoutBraces))
    , m_thread(QThread::currentThread())
{}

HistoryStore::~HistoryStore()
{
    if (m_db.isOpen())
        m_db.close();
    // The connection can only be removed once no QSqlDatabase refers to it any more.
    m_db = QSqlDatabase();
    QSqlDatabase::removeDatabase(m_connectionName);
}

QString HistoryStore::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/code-sandbox/history.sqlite");
}

Expected<std::unique_ptr<HistoryStore>> HistoryStore::open(const QString& path)
{
    return open(path, HistorySchema::migrations());
}

Expected<std::unique_ptr<HistoryStore>>
HistoryStore::open(const QString& path, const QList<HistoryMigration>& migrations)
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
    std::unique_ptr<HistoryStore> store;
    for (int attempt = 1;; ++attempt) {
        store.reset(new HistoryStore(filePath));
        const Expected<void> initialized = store->initialize(migrations);
        if (initialized)
            break;
        if (!store->m_lastErrorWasBusy || retryUntil.hasExpired())
            return fail(initialized.error());
        if (attempt == 1)
            qCInfo(lcHistory).noquote() << "the run history" << shownPath
                                        << "is busy, trying again:" << initialized.error();
        store.reset();
        QThread::msleep(static_cast<unsigned long>(std::min(50 * attempt, 500)));
    }
    qCDebug(lcHistory).noquote() << "opened" << shownPath << "at schema version"
                                 << store->m_schemaVersion;
    return store;
}

Expected<void> HistoryStore::initialize(const QList<HistoryMigration>& migrations)
{
    m_db = QSqlDatabase::addDatabase(kDriver, m_connectionName);
    m_db.setDatabaseName(m_path);
    m_db.setConnectOptions(
        QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(kDefaultBusyTimeout.count()));
    if (!m_db.open())
        return Unexpected(m_db.lastError().text());
    if (!setBusyTimeout(kDefaultBusyTimeout))
        return Unexpected(m_lastError);

    // Look before touching anything: a file that is not ours, or is newer than this build, is
    // left exactly as it is. One read transaction, so that the three answers come from the same
    // snapshot even while another process is creating the schema.
    if (!execute(QStringLiteral("BEGIN"), "reading the schema"))
        return Unexpected(m_lastError);
    const auto applicationId =
        readInteger(QStringLiteral("PRAGMA application_id"), "reading the application id");
    const auto version = readInteger(QStringLiteral("PRAGMA user_version"), "reading the version");
    const auto objects =
        readInteger(QStringLiteral("SELECT count(*) FROM sqlite_master"), "reading the schema");
    const QString readError = m_lastError;
    execute(QStringLiteral("ROLLBACK"), "reading the schema");
    if (!applicationId || !version || !objects)
        return Unexpected(readError);
    const int latest = migrations.constLast().version;
    if (*version > latest)
        return Unexpected(QStringLiteral("it was written by a newer version of Code Sandbox "
                                         "(schema version %1; this version knows up to %2). It "
                                         "was left unchanged: update Code Sandbox, or use "
                                         "another file.")
                              .arg(*version)
                              .arg(latest));
    // A file without tables or marks is new (SQLite makes empty files on any open).
    const bool fresh = *objects == 0 && *version == 0 && *applicationId == 0;
    if (!fresh && *applicationId != HistorySchema::kApplicationId)
        return Unexpected(
            QStringLiteral("it is not a Code Sandbox history database (another program's "
                           "SQLite file?). It was left unchanged."));

    // auto_vacuum only takes effect on a file without tables, and before the WAL switch writes
    // the file's first page; on an existing file it changes nothing.
    if (!execute(QStringLiteral("PRAGMA auto_vacuum = INCREMENTAL"), "setting auto_vacuum"))
        return Unexpected(m_lastError);
    QSqlQuery journal(m_db);
    if (!journal.exec(QStringLiteral("PRAGMA journal_mode = WAL")) || !journal.next()) {
        m_lastErrorWasBusy = isBusy(journal.lastError());
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
    if (!execute(QStringLiteral("PRAGMA synchronous = NORMAL"), "setting synchronous") ||
        !execute(QStringLiteral("PRAGMA foreign_keys = ON"), "setting foreign_keys") ||
        !execute(QStringLiteral("PRAGMA journal_size_limit = %1").arg(kJournalSizeLimit),
                 "setting journal_size_limit"))
        return Unexpected(m_lastError);
    return migrate(migrations);
}

Expected<void> HistoryStore::migrate(const QList<HistoryMigration>& migrations)
{
    const int latest = migrations.constLast().version;
    // One transaction per step, and the version read again inside it: several processes may
    // open a new or old file at the same moment, and each step must run exactly once. A new
    // file gets every step in one transaction: it is created at the latest version, not
    // upgraded through the older ones.
    for (;;) {
        if (!execute(QStringLiteral("BEGIN IMMEDIATE"), "starting a schema upgrade"))
            return Unexpected(m_lastError);
        const auto version =
            readInteger(QStringLiteral("PRAGMA user_version"), "reading the version");
        if (!version || *version > latest || *version == latest) {
            execute(QStringLiteral("ROLLBACK"), "ending a schema check");
            if (!version)
                return Unexpected(m_lastError);
            if (*version > latest)
                return Unexpected(
                    QStringLiteral("another process upgraded it to schema version %1, "
                                   "newer than this version of Code Sandbox knows (%2)")
                        .arg(*version)
                        .arg(latest));
            m_schemaVersion = static_cast<int>(*version);
            setError({});
            return {};
        }
        const bool creating = *version == 0;
        const auto first = static_cast<qsizetype>(*version);
        const qsizetype last = creating ? migrations.size() - 1 : first;
        const HistoryMigration& target = migrations.at(last);
        bool ok = true;
        for (qsizetype i = first; ok && i <= last; ++i) {
            for (const QString& statement : migrations.at(i).statements) {
                if (!execute(statement,
                             creating ? "creating the schema" : "upgrading the schema")) {
                    ok = false;
                    break;
                }
            }
        }
        ok = ok &&
             execute(QStringLiteral("PRAGMA user_version = %1").arg(target.version),
                     "setting the version") &&
             execute(QStringLiteral("COMMIT"), "committing a schema upgrade");
        if (!ok) {
            const QString failure = m_lastError;
            execute(QStringLiteral("ROLLBACK"), "undoing a schema upgrade");
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

bool HistoryStore::setBusyTimeout(std::chrono::milliseconds timeout)
{
    if (!onOwnerThread())
        return false;
    if (!execute(QStringLiteral("PRAGMA busy_timeout = %1").arg(timeout.count()),
                 "setting the busy timeout"))
        return false;
    m_busyTimeout = timeout;
    setError({});
    return true;
}

bool HistoryStore::onOwnerThread() const
{
    if (QThread::currentThread() == m_thread)
        return true;
    // QtSql connections must stay on their thread; refusing beats corrupting its state.
    setError(QStringLiteral("the run history was used from another thread than the one that "
                            "opened it"));
    qCCritical(lcHistory).noquote() << m_lastError;
    return false;
}

void HistoryStore::setError(const QString& message) const
{
    m_lastError = message;
}

void HistoryStore::failQuery(const char* what, const QSqlError& error) const
{
    setError(QStringLiteral("%1: %2").arg(QLatin1String(what), describe(error)));
    m_lastErrorWasBusy = isBusy(error);
    qCWarning(lcHistory).noquote()
        << "run history" << QDir::toNativeSeparators(m_path) << "-" << m_lastError;
}

bool HistoryStore::execute(QSqlQuery& query, const char* what) const
{
    if (query.exec())
        return true;
    failQuery(what, query.lastError());
    return false;
}

bool HistoryStore::execute(const QString& sql, const char* what) const
{
    QSqlQuery query(m_db);
    if (query.exec(sql))
        return true;
    failQuery(what, query.lastError());
    return false;
}

std::optional<qint64> HistoryStore::readInteger(const QString& sql, const char* what) const
{
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    if (!query.exec(sql)) {
        failQuery(what, query.lastError());
        return std::nullopt;
    }
    if (!query.next()) {
        setError(QStringLiteral("%1: no result").arg(QLatin1String(what)));
        return std::nullopt;
    }
    return query.value(0).toLongLong();
}

bool HistoryStore::write(const char* what, const std::function<bool()>& body)
{
    // IMMEDIATE takes the write lock up front (waiting up to the busy timeout): a deferred
    // transaction that reads first could fail at its first write without waiting at all.
    if (!execute(QStringLiteral("BEGIN IMMEDIATE"), what))
        return false;
    if (body() && execute(QStringLiteral("COMMIT"), what)) {
        setError({});
        return true;
    }
    const QString failure = m_lastError;
    QSqlQuery rollback(m_db);
    rollback.exec(QStringLiteral("ROLLBACK")); // fails harmlessly when SQLite already rolled back
    setError(failure);
    return false;
}

std::optional<qint64> HistoryStore::nextChangeSeq()
{
    if (!execute(QStringLiteral("UPDATE counters SET change_seq = change_seq + 1 WHERE id = 1"),
                 "counting a change"))
        return std::nullopt;
    return readInteger(QStringLiteral("SELECT change_seq FROM counters WHERE id = 1"),
                       "counting a change");
}

bool HistoryStore::bumpDeletionSeq()
{
    return execute(QStringLiteral("UPDATE counters SET delete_seq = delete_seq + 1 WHERE id = 1"),
                   "counting a deletion");
}

std::optional<qint64> HistoryStore::recordStart(const RunRecord& run)
{
    if (!onOwnerThread())
        return std::nullopt;
    std::optional<qint64> id;
    const bool ok = write("recording the start of a run", [&] {
        const auto seq = nextChangeSeq();
        if (!seq)
            return false;
        QSqlQuery insert(m_db);
        insert.prepare(QStringLiteral(
            "INSERT INTO runs (change_seq, server_instance, server_pid, host_name, transport, "
            "session_id, client_name, client_version, tool, language, image, code, limits, "
            "stdout_text, stderr_text, stdout_truncated, stderr_truncated, exit_code, "
            "duration_ms, status, started_at, ended_at, error_message, files_key, session_name, "
            "session_key, cell_number) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)"));
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
        insert.addBindValue(limitsText(run.limits));
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
        if (!execute(insert, "recording the start of a run"))
            return false;
        id = insert.lastInsertId().toLongLong();
        return insertFiles(*id, run.files, RunFileRecord::Direction::Input);
    });
    if (!ok)
        return std::nullopt;
    return id;
}

bool HistoryStore::recordEnd(qint64 id, const RunRecord& finished)
{
    if (!onOwnerThread())
        return false;
    if (!RunStatusTraits::isFinal(finished.status)) {
        setError(
            QStringLiteral("recording the end of run %1: its status is still running").arg(id));
        qCWarning(lcHistory).noquote() << m_lastError;
        return false;
    }
    return write("recording the end of a run", [&] {
        const auto seq = nextChangeSeq();
        if (!seq)
            return false;
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral(
            "UPDATE runs SET change_seq = ?, status = ?, stdout_text = ?, stderr_text = ?, "
            "stdout_truncated = ?, stderr_truncated = ?, exit_code = ?, duration_ms = ?, "
            "ended_at = ?, error_message = ?, output_file_count = ?, connections_not_listed = ?, "
            // A cell's number is known once it ran as one; 0 keeps the one it started with.
            "cell_number = CASE WHEN ? > 0 THEN ? ELSE cell_number END, "
            // Limits the engine did not enforce join the limits the run started with.
            "limits = CASE WHEN ? = '[]' THEN limits "
            "ELSE json_set(limits, '$.unenforced', json(?)) END WHERE id = ?"));
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
            QString::fromUtf8(QJsonDocument(QJsonArray::fromStringList(finished.unenforcedLimits))
                                  .toJson(QJsonDocument::Compact));
        update.addBindValue(unenforced);
        update.addBindValue(unenforced);
        update.addBindValue(id);
        if (!execute(update, "recording the end of a run"))
            return false;
        if (update.numRowsAffected() != 1) {
            // Deleted meanwhile (by a user, in another process): nothing left to update.
            setError(QStringLiteral("recording the end of run %1: no such run").arg(id));
            qCInfo(lcHistory).noquote() << m_lastError;
            return false;
        }
        return dropStopRequest(id, "recording the end of a run") &&
               insertFiles(id, finished.files, RunFileRecord::Direction::Output) &&
               insertConnections(id, finished.connections);
    });
}

bool HistoryStore::dropStopRequest(qint64 runId, const char* what)
{
    QSqlQuery drop(m_db);
    drop.prepare(QStringLiteral("DELETE FROM stop_requests WHERE run_id = ?"));
    drop.addBindValue(runId);
    return execute(drop, what);
}

bool HistoryStore::recordOutput(qint64 id, const QString& stdoutText, const QString& stderrText)
{
    if (!onOwnerThread())
        return false;
    // A live view can do without one update; the server's thread must not wait seconds for it
    // while another process holds the file (the app deleting many runs, say).
    const std::chrono::milliseconds usual = m_busyTimeout;
    if (!setBusyTimeout(kLiveOutputBusyTimeout))
        return false;
    const auto restore = qScopeGuard([&] {
        const QString error = m_lastError; // the write's, which restoring must not clear
        setBusyTimeout(usual);
        m_lastError = error;
    });
    return write("recording a running run's output", [&] {
        const auto seq = nextChangeSeq();
        if (!seq)
            return false;
        QSqlQuery update(m_db);
        update.prepare(QStringLiteral("UPDATE runs SET change_seq = ?, stdout_text = ?, "
                                      "stderr_text = ? WHERE id = ? AND status = ?"));
        update.addBindValue(*seq);
        update.addBindValue(text(stdoutText));
        update.addBindValue(text(stderrText));
        update.addBindValue(id);
        update.addBindValue(RunStatusTraits::toString(RunStatus::Running));
        if (!execute(update, "recording a running run's output"))
            return false;
        if (update.numRowsAffected() != 1) {
            setError(QStringLiteral("recording the output of run %1: it is not running").arg(id));
            return false;
        }
        return true;
    });
}

bool HistoryStore::requestStop(qint64 id)
{
    if (!onOwnerThread())
        return false;
    return write("asking for a run to stop", [&] {
        QSqlQuery insert(m_db);
        insert.prepare(QStringLiteral("INSERT OR IGNORE INTO stop_requests (run_id, requested_at) "
                                      "SELECT id, ? FROM runs WHERE id = ? AND status = ?"));
        insert.addBindValue(QDateTime::currentMSecsSinceEpoch());
        insert.addBindValue(id);
        insert.addBindValue(RunStatusTraits::toString(RunStatus::Running));
        if (!execute(insert, "asking for a run to stop"))
            return false;
        if (insert.numRowsAffected() != 1 &&
            readInteger(
                QStringLiteral("SELECT count(*) FROM stop_requests WHERE run_id = %1").arg(id),
                "asking for a run to stop")
                    .value_or(0) == 0) {
            setError(QStringLiteral("run %1 is not running").arg(id));
            return false;
        }
        return true;
    });
}

QList<qint64> HistoryStore::takeStopRequests(const QList<qint64>& runningIds)
{
    QList<qint64> taken;
    if (runningIds.isEmpty() || !onOwnerThread())
        return taken;
    QStringList ids;
    for (qint64 id : runningIds)
        ids << QString::number(id);
    const QString inList = ids.join(QLatin1Char(','));
    // A cheap read first: nearly always there is no request, and a read takes no write lock.
    QSqlQuery find(m_db);
    if (!find.exec(
            QStringLiteral("SELECT run_id FROM stop_requests WHERE run_id IN (%1)").arg(inList))) {
        setError(QStringLiteral("looking for stop requests: %1").arg(describe(find.lastError())));
        return taken;
    }
    while (find.next())
        taken << find.value(0).toLongLong();
    find.finish();
    if (taken.isEmpty())
        return taken;
    QStringList takenIds;
    for (qint64 id : std::as_const(taken))
        takenIds << QString::number(id);
    const bool removed = write("taking stop requests", [&] {
        return execute(QStringLiteral("DELETE FROM stop_requests WHERE run_id IN (%1)")
                           .arg(takenIds.join(QLatin1Char(','))),
                       "taking stop requests");
    });
    // Not removed: handed out again next time, and stopping a run twice does no harm.
    Q_UNUSED(removed);
    return taken;
}

bool HistoryStore::insertFiles(qint64 runId, const QList<RunFileRecord>& files,
                               RunFileRecord::Direction direction)
{
    // Numbered after the run's files already there: the inputs come at the start, the outputs
    // at the end.
    const auto next = readInteger(
        QStringLiteral("SELECT coalesce(max(ordinal) + 1, 0) FROM run_files WHERE run_id = %1")
            .arg(runId),
        "recording a run's files");
    if (!next)
        return false;
    qint64 ordinal = *next;
    QSqlQuery insert(m_db);
    insert.prepare(QStringLiteral("INSERT INTO run_files (run_id, ordinal, direction, path, "
                                  "size_bytes, mime_type, stored_path, skip_reason) VALUES (?, "
                                  "?, ?, ?, ?, ?, ?, ?)"));
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
        if (!execute(insert, "recording a run's files"))
            return false;
    }
    return true;
}

bool HistoryStore::insertConnections(qint64 runId, const QList<RunConnectionRecord>& connections)
{
    QSqlQuery insert(m_db);
    insert.prepare(QStringLiteral(
        "INSERT INTO run_connections (run_id, ordinal, host, port, allowed, reason, address, "
        "bytes_sent, bytes_received, started_at, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?)"));
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
        if (!execute(insert, "recording a run's connections"))
            return false;
    }
    return true;
}

QList<RunConnectionRecord> HistoryStore::connectionsOf(qint64 runId) const
{
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT host, port, allowed, reason, address, bytes_sent, "
                                 "bytes_received, started_at, duration_ms FROM run_connections "
                                 "WHERE run_id = ? ORDER BY ordinal"));
    query.addBindValue(runId);
    QList<RunConnectionRecord> connections;
    if (!execute(query, "reading a run's connections"))
        return connections;
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

void HistoryStore::addFiles(QList<RunRecord>& runs) const
{
    // Only a run with a folder can have files: the others cost nothing.
    for (RunRecord& run : runs) {
        if (!run.filesKey.isEmpty())
            run.files = filesOf(run.id);
    }
}

QList<RunFileRecord> HistoryStore::filesOf(qint64 runId) const
{
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT direction, path, size_bytes, mime_type, stored_path, "
                                 "skip_reason FROM run_files WHERE run_id = ? ORDER BY ordinal"));
    query.addBindValue(runId);
    QList<RunFileRecord> files;
    if (!execute(query, "reading a run's files"))
        return files;
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

bool HistoryStore::collectFilesKeys(const QString& condition, const QVariantList& values)
{
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT files_key FROM runs WHERE files_key != '' AND (") +
                  condition + u')');
    for (const QVariant& value : values)
        query.addBindValue(value);
    if (!execute(query, "finding the files of deleted runs"))
        return false;
    while (query.next())
        m_deletedFilesKeys.append(query.value(0).toString());
    return true;
}

void HistoryStore::removeDeletedRunsFiles()
{
    const RunFilesStore files(filesRoot());
    for (const QString& key : std::as_const(m_deletedFilesKeys))
        files.remove(key);
}

QString HistoryStore::filesRoot() const
{
    return RunFilesStore::rootIn(QFileInfo(m_path).absolutePath());
}

int HistoryStore::markInterrupted(const QString& hostName,
                                  const std::function<bool(qint64 pid)>& isServerAlive)
{
    if (!onOwnerThread())
        return -1;
    // The servers are asked about first, outside the transaction: a probe may be slow, and no
    // other process should wait for it.
    QList<std::pair<qint64, QString>> deadServers;
    {
        QSqlQuery servers(m_db);
        servers.setForwardOnly(true);
        servers.prepare(QStringLiteral("SELECT DISTINCT server_pid, server_instance FROM runs "
                                       "WHERE status = ? AND host_name = ?"));
        servers.addBindValue(RunStatusTraits::toString(RunStatus::Running));
        servers.addBindValue(text(hostName));
        if (!execute(servers, "looking for interrupted runs"))
            return -1;
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
    if (deadServers.isEmpty()) {
        setError({});
        return 0;
    }

    int marked = 0;
    const bool ok = write("marking interrupted runs", [&] {
        marked = 0;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (const auto& [pid, instance] : deadServers) {
            QList<qint64> ids;
            {
                QSqlQuery runs(m_db);
                runs.setForwardOnly(true);
                runs.prepare(QStringLiteral("SELECT id FROM runs WHERE status = ? AND "
                                            "host_name = ? AND server_pid = ? AND "
                                            "server_instance = ? ORDER BY id"));
                runs.addBindValue(RunStatusTraits::toString(RunStatus::Running));
                runs.addBindValue(text(hostName));
                runs.addBindValue(pid);
                runs.addBindValue(text(instance));
                if (!execute(runs, "marking interrupted runs"))
                    return false;
                while (runs.next())
                    ids.append(runs.value(0).toLongLong());
            }
            // One change_seq per run, as for any other update, so changedSince can page.
            for (const qint64 id : ids) {
                const auto seq = nextChangeSeq();
                if (!seq)
                    return false;
                QSqlQuery update(m_db);
                update.prepare(QStringLiteral(
                    "UPDATE runs SET change_seq = ?, status = ?, ended_at = ?, error_message = "
                    "CASE WHEN error_message = '' THEN ? ELSE error_message END WHERE id = ?"));
                update.addBindValue(*seq);
                update.addBindValue(RunStatusTraits::toString(RunStatus::Interrupted));
                update.addBindValue(now);
                update.addBindValue(
                    QStringLiteral("The server process (pid %1) ended before the run did.")
                        .arg(pid));
                update.addBindValue(id);
                if (!execute(update, "marking interrupted runs") ||
                    !dropStopRequest(id, "marking interrupted runs"))
                    return false;
                ++marked;
            }
        }
        return true;
    });
    if (!ok)
        return -1;
    if (marked > 0)
        qCInfo(lcHistory) << "marked" << marked << "runs of ended servers as interrupted";
    return marked;
}

bool HistoryStore::remove(const QList<qint64>& ids)
{
    if (!onOwnerThread())
        return false;
    if (ids.isEmpty()) {
        setError({});
        return true;
    }
    const bool ok = write("deleting runs", [&] {
        qint64 deleted = 0;
        for (qsizetype first = 0; first < ids.size(); first += kDeleteBatch) {
            const QList<qint64> batch = ids.mid(first, kDeleteBatch);
            QStringList marks;
            marks.reserve(batch.size());
            QVariantList values;
            for (const qint64 id : batch) {
                marks += QStringLiteral("?");
                values += id;
            }
            const QString condition = QStringLiteral("id IN (") + marks.join(u',') + u')';
            if (!collectFilesKeys(condition, values))
                return false;
            QSqlQuery query(m_db);
            query.prepare(QStringLiteral("DELETE FROM runs WHERE ") + condition);
            for (const QVariant& value : std::as_const(values))
                query.addBindValue(value);
            if (!execute(query, "deleting runs"))
                return false;
            deleted += query.numRowsAffected();
        }
        return deleted == 0 || bumpDeletionSeq();
    });
    finishDeletion(ok);
    return ok;
}

void HistoryStore::finishDeletion(bool committed)
{
    // The folders go only once their runs are gone for good: a rolled back deletion keeps both.
    if (committed)
        removeDeletedRunsFiles();
    m_deletedFilesKeys.clear();
}

int HistoryStore::prune(const RetentionPolicy& policy)
{
    if (!onOwnerThread())
        return 0;
    setError({});
    int total = 0;
    if (pruneByCountAndAge(policy, &total) && policy.maxTotalBytes > 0)
        pruneBySize(policy.maxTotalBytes, &total);
    if (total > 0)
        qCInfo(lcHistory) << "pruned" << total << "runs from the history";
    return total;
}

int HistoryStore::pruneToSize(qint64 maxBytes)
{
    if (!onOwnerThread())
        return 0;
    setError({});
    int total = 0;
    if (maxBytes > 0)
        pruneBySize(maxBytes, &total);
    if (total > 0)
        qCInfo(lcHistory) << "pruned" << total << "runs to keep the history within"
                          << maxBytes / RetentionPolicy::kMiB << "MiB";
    return total;
}

bool HistoryStore::pruneByCountAndAge(const RetentionPolicy& policy, int* total)
{
    if (policy.maxRuns <= 0 && policy.maxAgeDays <= 0)
        return true;
    const qint64 oldestKept =
        QDateTime::currentMSecsSinceEpoch() - static_cast<qint64>(policy.maxAgeDays) * kMsPerDay;
    for (;;) {
        int deleted = 0;
        const bool ok = write("pruning the history", [&] {
            QStringList conditions;
            QVariantList values;
            if (policy.maxRuns > 0) {
                // The id of the maxRuns-th newest run: everything older goes.
                QSqlQuery cutoff(m_db);
                cutoff.setForwardOnly(true);
                cutoff.prepare(QStringLiteral("SELECT id FROM runs ORDER BY id DESC LIMIT 1 "
                                              "OFFSET ?"));
                cutoff.addBindValue(policy.maxRuns - 1);
                if (!execute(cutoff, "pruning the history"))
                    return false;
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
                return true;
            const QString condition = QStringLiteral("id IN (SELECT id FROM runs WHERE status "
                                                     "!= ? AND (") +
                                      conditions.join(QStringLiteral(" OR ")) +
                                      QStringLiteral(") ORDER BY id LIMIT %1)").arg(kDeleteBatch);
            values.prepend(RunStatusTraits::toString(RunStatus::Running));
            if (!collectFilesKeys(condition, values))
                return false;
            QSqlQuery query(m_db);
            query.prepare(QStringLiteral("DELETE FROM runs WHERE ") + condition);
            for (const QVariant& value : std::as_const(values))
                query.addBindValue(value);
            if (!execute(query, "pruning the history"))
                return false;
            deleted = query.numRowsAffected();
            return deleted == 0 || bumpDeletionSeq();
        });
        finishDeletion(ok);
        if (!ok)
            return false;
        *total += deleted;
        if (deleted < kDeleteBatch)
            return true;
    }
}

bool HistoryStore::pruneBySize(qint64 maxBytes, int* total)
{
    // Looked at before taking the write lock: nearly always the history is within its budget.
    const auto before = usedBytes();
    if (!before)
        return false;
    if (*before <= maxBytes)
        return true;
    for (;;) {
        int deleted = 0;
        bool over = false;
        const bool ok = write("pruning the history to its size limit", [&] {
            // Measured again inside the transaction: another process may have pruned already.
            const auto used = usedBytes();
            if (!used)
                return false;
            over = *used > maxBytes;
            if (!over)
                return true;
            // The oldest ended runs whose texts add up to the excess, or to
            // kPruneBytesPerTransaction if that is less: other processes' writes never wait
            // long, even for runs recorded before texts were capped. length() counts
            // characters, not bytes, and pages are not all full: an estimate, and the loop
            // measures again after each batch rather than deleting more than it must.
            const qint64 toFree = std::min(*used - maxBytes, kPruneBytesPerTransaction);
            QSqlQuery oldest(m_db);
            oldest.setForwardOnly(true);
            oldest.prepare(QStringLiteral("SELECT id, length(code) + length(stdout_text) + "
                                          "length(stderr_text) + length(error_message) FROM runs "
                                          "WHERE status != ? ORDER BY id LIMIT %1")
                               .arg(kDeleteBatch));
            oldest.addBindValue(RunStatusTraits::toString(RunStatus::Running));
            if (!execute(oldest, "pruning the history to its size limit"))
                return false;
            qint64 lastId = 0;
            qint64 freed = 0;
            while (freed < toFree && oldest.next()) {
                lastId = oldest.value(0).toLongLong();
                freed += oldest.value(1).toLongLong() + kRunOverheadBytes;
            }
            oldest.finish();
            if (lastId == 0)
                return true; // nothing but running runs: they stay, whatever their size
            const QString condition = QStringLiteral("id <= ? AND status != ?");
            const QVariantList values{lastId, RunStatusTraits::toString(RunStatus::Running)};
            if (!collectFilesKeys(condition, values))
                return false;
            QSqlQuery remove(m_db);
            remove.prepare(QStringLiteral("DELETE FROM runs WHERE ") + condition);
            for (const QVariant& value : values)
                remove.addBindValue(value);
            if (!execute(remove, "pruning the history to its size limit"))
                return false;
            deleted = remove.numRowsAffected();
            return deleted == 0 || bumpDeletionSeq();
        });
        finishDeletion(ok);
        if (!ok)
            return false;
        *total += deleted;
        if (!over || deleted == 0)
            return true;
    }
}

int HistoryStore::pruneFiles(qint64 maxBytes, qint64* bytesLeft)
{
    if (!onOwnerThread() || maxBytes <= 0)
        return 0;
    QSqlQuery running(m_db);
    running.setForwardOnly(true);
    running.prepare(
        QStringLiteral("SELECT files_key FROM runs WHERE status = ? AND files_key != ''"));
    running.addBindValue(RunStatusTraits::toString(RunStatus::Running));
    if (!execute(running, "pruning the runs' files"))
        return 0;
    QStringList keep;
    while (running.next())
        keep.append(running.value(0).toString());
    setError({});
    const QStringList removed = RunFilesStore(filesRoot()).pruneTo(maxBytes, keep, bytesLeft);
    if (!removed.isEmpty())
        qCInfo(lcHistory) << "removed the files of" << removed.size() << "runs to keep them within"
                          << maxBytes / RetentionPolicy::kMiB << "MiB";
    return static_cast<int>(removed.size());
}

int HistoryStore::vacuumIfWorthIt()
{
    if (!onOwnerThread())
        return 0;
    const auto autoVacuum = autoVacuumMode();
    const auto freePages = readInteger(QStringLiteral("PRAGMA freelist_count"), "vacuuming");
    const auto pages = readInteger(QStringLiteral("PRAGMA page_count"), "vacuuming");
    if (!autoVacuum || !freePages || !pages)
        return 0;
    setError({});
    // A file made without incremental auto-vacuum would need a full VACUUM, which locks every
    // process out for as long as it takes to rewrite the file: see enableIncrementalVacuum().
    if (*autoVacuum != kIncrementalVacuum || *freePages < kVacuumMinFreePages ||
        *freePages * 5 < *pages)
        return 0;
    qint64 released = 0;
    for (qint64 left = *freePages; left > 0; left -= kVacuumPagesPerTransaction) {
        const bool ok = write("vacuuming", [&] {
            // SQLite frees one page per step of this pragma, and QtSql steps a statement without
            // result columns only once per exec(): hence one exec() per page.
            QSqlQuery query(m_db);
            if (!query.prepare(QStringLiteral("PRAGMA incremental_vacuum"))) {
                setError(QStringLiteral("vacuuming: ") + describe(query.lastError()));
                return false;
            }
            const qint64 chunk = qMin<qint64>(left, kVacuumPagesPerTransaction);
            for (qint64 i = 0; i < chunk; ++i) {
                if (!execute(query, "vacuuming"))
                    return false;
            }
            return true;
        });
        if (!ok)
            break;
    }
    const auto freeAfter = readInteger(QStringLiteral("PRAGMA freelist_count"), "vacuuming");
    if (freeAfter)
        released = *freePages - *freeAfter;
    // Copy the shrunk pages into the file now, so that its size goes down.
    QSqlQuery checkpoint(m_db);
    checkpoint.exec(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
    qCInfo(lcHistory) << "released" << released << "free pages of the history";
    return static_cast<int>(released);
}

bool HistoryStore::enableIncrementalVacuum()
{
    if (!onOwnerThread())
        return false;
    const auto autoVacuum = autoVacuumMode();
    if (!autoVacuum)
        return false;
    setError({});
    if (*autoVacuum == kIncrementalVacuum)
        return true;
    // The mode of an existing file changes only with a VACUUM, which rewrites all of it.
    if (!execute(QStringLiteral("PRAGMA auto_vacuum = INCREMENTAL"), "setting auto_vacuum") ||
        !execute(QStringLiteral("VACUUM"), "rewriting the history with auto_vacuum"))
        return false;
    qCInfo(lcHistory).noquote() << "the run history" << QDir::toNativeSeparators(m_path)
                                << "was rewritten so that it can shrink";
    return true;
}

std::optional<qint64> HistoryStore::autoVacuumMode() const
{
    // SQLite answers this pragma from what it read of the file's header at its last
    // transaction, which another process may have rewritten since: a read brings it up to date.
    if (!readInteger(QStringLiteral("SELECT count(*) FROM sqlite_master"), "vacuuming"))
        return std::nullopt;
    return readInteger(QStringLiteral("PRAGMA auto_vacuum"), "vacuuming");
}

std::optional<qint64> HistoryStore::usedBytes() const
{
    const auto pages = readInteger(QStringLiteral("PRAGMA page_count"), "measuring the history");
    const auto freePages =
        readInteger(QStringLiteral("PRAGMA freelist_count"), "measuring the history");
    const auto pageSize = readInteger(QStringLiteral("PRAGMA page_size"), "measuring the history");
    if (!pages || !freePages || !pageSize)
        return std::nullopt;
    return (*pages - *freePages) * *pageSize;
}

qint64 HistoryStore::contentBytes() const
{
    if (!onOwnerThread())
        return -1;
    const auto used = usedBytes();
    if (!used)
        return -1;
    setError({});
    return *used;
}

QList<RunRecord> HistoryStore::select(const QString& sql, const QVariantList& values) const
{
    if (!onOwnerThread())
        return {};
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    query.prepare(sql);
    for (const QVariant& value : values)
        query.addBindValue(value);
    if (!execute(query, "reading the history"))
        return {};
    QList<RunRecord> runs;
    while (query.next())
        runs.append(readRun(query));
    if (query.lastError().isValid()) {
        setError(QStringLiteral("reading the history: ") + describe(query.lastError()));
        qCWarning(lcHistory).noquote() << m_lastError;
        return {};
    }
    setError({});
    return runs;
}

QList<RunRecord> HistoryStore::list(const HistoryQuery& query) const
{
    QVariantList values;
    QString sql = selectColumns(query.includeContent, query.previewChars) +
                  whereClause(query, &values) + QStringLiteral(" ORDER BY id DESC");
    if (query.limit > 0 || query.offset > 0) {
        sql += QStringLiteral(" LIMIT ? OFFSET ?");
        values << (query.limit > 0 ? query.limit : -1) << qMax(query.offset, 0);
    }
    QList<RunRecord> runs = select(sql, values);
    if (query.includeContent)
        addFiles(runs);
    return runs;
}

qint64 HistoryStore::count(const HistoryQuery& query) const
{
    if (!onOwnerThread())
        return -1;
    QVariantList values;
    QSqlQuery select(m_db);
    select.setForwardOnly(true);
    select.prepare(QStringLiteral("SELECT count(*) FROM runs") + whereClause(query, &values));
    for (const QVariant& value : std::as_const(values))
        select.addBindValue(value);
    if (!execute(select, "counting runs") || !select.next())
        return -1;
    setError({});
    return select.value(0).toLongLong();
}

std::optional<RunRecord> HistoryStore::get(qint64 id) const
{
    QList<RunRecord> runs = select(selectColumns(true, 0) + QStringLiteral(" WHERE id = ?"), {id});
    if (runs.isEmpty())
        return std::nullopt;
    addFiles(runs);
    runs.first().connections = connectionsOf(id);
    return runs.constFirst();
}

QList<RunRecord> HistoryStore::changedSince(qint64 lastSeenChangeSeq, int limit,
                                            int previewChars) const
{
    return select(selectColumns(false, previewChars) +
                      QStringLiteral(" WHERE change_seq > ? ORDER BY change_seq LIMIT ?"),
                  {lastSeenChangeSeq, limit > 0 ? limit : -1});
}

QStringList HistoryStore::clients() const
{
    if (!onOwnerThread())
        return {};
    // A skip scan of the client name index: one index seek per distinct name, so it costs the
    // same with 100 runs as with 100,000 (a plain SELECT DISTINCT reads every index entry).
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    if (!query.exec(QStringLiteral(
            "WITH RECURSIVE names(name) AS (SELECT min(client_name) FROM runs UNION ALL SELECT "
            "(SELECT min(client_name) FROM runs WHERE client_name > names.name) FROM names "
            "WHERE names.name IS NOT NULL) SELECT name FROM names WHERE name IS NOT NULL"))) {
        setError(QStringLiteral("listing the clients: ") + describe(query.lastError()));
        qCWarning(lcHistory).noquote() << m_lastError;
        return {};
    }
    QStringList names;
    while (query.next())
        names.append(query.value(0).toString());
    setError({});
    return names;
}

QList<HistoryInterpreterSession> HistoryStore::sessions(int limit) const
{
    if (!onOwnerThread())
        return {};
    // Through the partial session index: one-shot runs cost nothing here.
    QSqlQuery query(m_db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral(
        "SELECT session_key, min(session_name), min(client_name), min(language), count(*), "
        "min(started_at), max(started_at) FROM runs WHERE session_key <> '' GROUP BY "
        "session_key ORDER BY max(id) DESC LIMIT ?"));
    query.addBindValue(limit > 0 ? limit : -1);
    if (!query.exec()) {
        setError(QStringLiteral("listing the sessions: ") + describe(query.lastError()));
        qCWarning(lcHistory).noquote() << m_lastError;
        return {};
    }
    QList<HistoryInterpreterSession> sessions;
    while (query.next()) {
        HistoryInterpreterSession session;
        session.key = query.value(0).toString();
        session.name = query.value(1).toString();
        session.clientName = query.value(2).toString();
        session.language = query.value(3).toString();
        session.calls = query.value(4).toInt();
        session.firstStartedAt = fromMs(query.value(5));
        session.lastStartedAt = fromMs(query.value(6));
        sessions.append(session);
    }
    setError({});
    return sessions;
}

std::optional<ActivityReport> HistoryStore::activity(const ActivityQuery& query) const
{
    if (!onOwnerThread())
        return std::nullopt;
    Expected<ActivityReport> report = ActivityReader::read(m_db, query);
    if (!report) {
        setError(QStringLiteral("reading the activity: %1").arg(report.error()));
        return std::nullopt;
    }
    setError({});
    return *std::move(report);
}

qint64 HistoryStore::lastChangeSeq() const
{
    if (!onOwnerThread())
        return -1;
    const auto seq = readInteger(QStringLiteral("SELECT change_seq FROM counters WHERE id = 1"),
                                 "reading the change counter");
    if (!seq)
        return -1;
    setError({});
    return *seq;
}

qint64 HistoryStore::deletionSeq() const
{
    if (!onOwnerThread())
        return -1;
    const auto seq = readInteger(QStringLiteral("SELECT delete_seq FROM counters WHERE id = 1"),
                                 "reading the deletion counter");
    if (!seq)
        return -1;
    setError({});
    return *seq;
}

} // namespace csm
