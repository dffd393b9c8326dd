#include "core/RunFilesStore.h"
#include "core/UtcDateTime.h"
#include "history/HistorySchema.h"
#include "history/HistoryStore.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUuid>

#include <algorithm>
#include <atomic>
#include <memory>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

using namespace csm;

Q_DECLARE_METATYPE(csm::HistoryQuery)

namespace {

const QString kHost = QStringLiteral("test-host");
const QString kOtherHost = QStringLiteral("other-host");

// A connection of its own beside the store's, to look at or forge the file as another program
// (or an older build) would.
class RawDatabase final
{
public:
    explicit RawDatabase(const QString& path)
        : m_name(QStringLiteral("raw-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        m_open = db.open();
    }
    ~RawDatabase()
    {
        {
            QSqlDatabase db = QSqlDatabase::database(m_name, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_name);
    }
    Q_DISABLE_COPY_MOVE(RawDatabase)

    bool isOpen() const { return m_open; }

    bool exec(const QString& sql, const QVariantList& values = {})
    {
        QSqlQuery query(QSqlDatabase::database(m_name, false));
        query.prepare(sql);
        for (const QVariant& value : values)
            query.addBindValue(value);
        if (query.exec())
            return true;
        m_lastError = query.lastError().text();
        qWarning().noquote() << "raw SQL failed:" << sql << m_lastError;
        return false;
    }

    // The first column of the first row, or an invalid QVariant.
    QVariant value(const QString& sql, const QVariantList& values = {})
    {
        QSqlQuery query(QSqlDatabase::database(m_name, false));
        query.prepare(sql);
        for (const QVariant& v : values)
            query.addBindValue(v);
        if (!query.exec() || !query.next()) {
            m_lastError = query.lastError().text();
            return {};
        }
        return query.value(0);
    }

    QString lastError() const { return m_lastError; }

private:
    QString m_name;
    bool m_open = false;
    QString m_lastError;
};

// Version 1 of the schema as it shipped, frozen on purpose: HistorySchema must keep opening
// (and, once there is a version 2, upgrading) files made with exactly this.
const char* const kFrozenVersion1[] = {
    "PRAGMA application_id = 1129532744",
    R"(CREATE TABLE runs (
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
))",
    R"(CREATE TABLE counters (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    change_seq INTEGER NOT NULL,
    delete_seq INTEGER NOT NULL
))",
    "INSERT INTO counters (id, change_seq, delete_seq) VALUES (1, 0, 0)",
    "CREATE UNIQUE INDEX runs_change_seq ON runs (change_seq)",
    "CREATE INDEX runs_started_at ON runs (started_at)",
    "CREATE INDEX runs_status ON runs (status, host_name)",
    "CREATE INDEX runs_client_name ON runs (client_name)",
    "PRAGMA user_version = 1",
};

QString historyPath(const QTemporaryDir& dir)
{
    return dir.filePath(QStringLiteral("history.sqlite"));
}

RunRecord newRun(const QString& code)
{
    RunRecord run;
    run.serverInstance = QStringLiteral("instance-1");
    run.serverPid = 4242;
    run.hostName = kHost;
    run.transport = QStringLiteral("stdio");
    run.sessionId = QStringLiteral("session-1");
    run.clientName = QStringLiteral("claude-ai");
    run.clientVersion = QStringLiteral("0.1.0");
    run.tool = QStringLiteral("run_code");
    run.language = QStringLiteral("python");
    run.image = QStringLiteral("code-sandbox-python:latest");
    run.code = code;
    run.limits = QJsonObject{{QStringLiteral("memory"), QStringLiteral("512m")},
                             {QStringLiteral("cpus"), 1.5},
                             {QStringLiteral("timeout_ms"), 30000},
                             {QStringLiteral("network"), false}};
    run.startedAt = QDateTime::currentDateTimeUtc();
    return run;
}

RunRecord ended(RunStatus status, const QString& stdoutText = {}, std::optional<int> exitCode = 0)
{
    RunRecord end;
    end.status = status;
    end.stdoutText = stdoutText;
    end.exitCode = exitCode;
    end.durationMs = 12;
    end.endedAt = QDateTime::currentDateTimeUtc();
    return end;
}

// A run's folder in the RunFilesStore beside `store`, with one file in it; returns its key.
QString makeRunFolder(const HistoryStore& store)
{
    const RunFilesStore files(store.filesRoot());
    const auto key = files.reserve();
    if (!key)
        return {};
    if (!QDir().mkpath(files.folder(*key) + QStringLiteral("/out")))
        return {};
    QFile file(files.folder(*key) + QStringLiteral("/out/chart.png"));
    if (!file.open(QIODevice::WriteOnly) || file.write("not really a png") < 0)
        return {};
    return *key;
}

// A run with a files key, an input and two outputs (one skipped).
RunRecord runWithFiles(const QString& key)
{
    RunRecord run = newRun(QStringLiteral("print('files')"));
    run.filesKey = key;
    run.files = {{RunFileRecord::Direction::Input,
                  QStringLiteral("data/in.csv"),
                  12,
                  QStringLiteral("text/plain"),
                  QStringLiteral("/x/") + key + QStringLiteral("/in/data/in.csv"),
                  {}}};
    return run;
}

RunRecord endWithFiles(const QString& key)
{
    RunRecord end = ended(RunStatus::Ok);
    end.files = {{RunFileRecord::Direction::Output,
                  QStringLiteral("chart.png"),
                  16,
                  QStringLiteral("image/png"),
                  QStringLiteral("/x/") + key + QStringLiteral("/out/chart.png"),
                  {}},
                 {RunFileRecord::Direction::Output,
                  QStringLiteral("big.bin"),
                  1LL << 30,
                  QStringLiteral("application/octet-stream"),
                  {},
                  QStringLiteral("over the 32 MiB total")}};
    return end;
}

// `count` runs, each with a folder holding `bytes` more of output, their folders a second apart
// (RunFilesStore prunes the oldest first); the oldest run is still running, the others ended.
// Returns their keys, oldest first; fewer when something failed.
QStringList addRunsWithFolders(HistoryStore& store, int count, qint64 bytes = 0)
{
    const RunFilesStore files(store.filesRoot());
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    QStringList keys;
    for (int i = 0; i < count; ++i) {
        const QString key = makeRunFolder(store);
        QFile data(files.folder(key) + QStringLiteral("/out/data.bin"));
        if (key.isEmpty() || !data.open(QIODevice::WriteOnly) ||
            data.write(QByteArray(bytes, 'x')) != bytes)
            return keys;
        data.close();
        const struct timeval times[2] = {{now - 1000 + i, 0}, {now - 1000 + i, 0}};
        const auto id = store.ledger().recordStart(runWithFiles(key));
        if (::utimes(QFile::encodeName(files.folder(key)).constData(), times) != 0 || !id ||
            (i != 0 && !store.ledger().recordEnd(*id, endWithFiles(key))))
            return keys;
        keys += key;
    }
    return keys;
}

QList<qint64> idsOf(const QList<RunRecord>& runs)
{
    QList<qint64> ids;
    for (const RunRecord& run : runs)
        ids.append(run.id);
    return ids;
}

QByteArray fileBytes(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

mode_t modeOf(const QString& path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return 0;
    return info.st_mode & 07777;
}

bool anyHistoryConnectionLeft()
{
    const QStringList names = QSqlDatabase::connectionNames();
    return std::any_of(names.cbegin(), names.cend(), [](const QString& name) {
        return name.startsWith(QLatin1String("csm-history-"));
    });
}

} // namespace

class tst_HistoryStore final : public QObject
{
    Q_OBJECT

private:
    // Opens `path`, failing the test (and returning null) when it cannot.
    std::unique_ptr<HistoryStore> openStore(const QString& path)
    {
        auto store = HistoryStore::open(path);
        if (!store) {
            qWarning().noquote() << store.error();
            return nullptr;
        }
        return *std::move(store);
    }

    // The runs of `list`: 1..12, a minute apart, with the statuses, languages and clients the
    // rows of list_data expect.
    void addListFixture(HistoryStore& store)
    {
        static const RunStatus statuses[] = {
            RunStatus::Ok,    RunStatus::Error,     RunStatus::Timeout,     RunStatus::Ok,
            RunStatus::Oom,   RunStatus::Cancelled, RunStatus::EngineError, RunStatus::Ok,
            RunStatus::Error, RunStatus::Ok,        RunStatus::Running,     RunStatus::Running,
        };
        for (int i = 1; i <= 12; ++i) {
            RunRecord run = newRun(i == 5 ? QStringLiteral("print('run 5: 50% off_sale')")
                                          : QStringLiteral("print('run %1')").arg(i));
            run.startedAt = m_listBase.addSecs(60LL * i);
            run.language = i % 2 == 1 ? QStringLiteral("python") : QStringLiteral("javascript");
            run.clientName = i % 3 == 0   ? QStringLiteral("Claude Desktop")
                             : i % 3 == 1 ? QStringLiteral("cursor-vscode")
                                          : QStringLiteral("100%_client");
            const auto id = store.ledger().recordStart(run);
            QVERIFY(id);
            QCOMPARE(*id, i);
            const RunStatus status = statuses[i - 1];
            if (status == RunStatus::Running)
                continue;
            RunRecord end = ended(status, QStringLiteral("out %1").arg(i));
            if (i == 7)
                end.stdoutText = QStringLiteral("a needle in stdout");
            if (i == 9)
                end.stderrText = QStringLiteral("a NEEDLE in stderr");
            QVERIFY(store.ledger().recordEnd(*id, end));
        }
    }

    QDateTime m_listBase = csm::utcFromMSecsSinceEpoch(1700000000000);

private Q_SLOTS:
    void initTestCase()
    {
        // Nothing here may reach the user's real data folder.
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(QSqlDatabase::isDriverAvailable(QStringLiteral("QSQLITE")),
                 "the QSQLITE driver is missing (Debian: libqt6sql6-sqlite)");
    }

    void cleanup() { QVERIFY(!anyHistoryConnectionLeft()); }

    void statusNames_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("name");
        QTest::newRow("running") << int(RunStatus::Running) << QStringLiteral("running");
        QTest::newRow("ok") << int(RunStatus::Ok) << QStringLiteral("ok");
        QTest::newRow("error") << int(RunStatus::Error) << QStringLiteral("error");
        QTest::newRow("timeout") << int(RunStatus::Timeout) << QStringLiteral("timeout");
        QTest::newRow("cancelled") << int(RunStatus::Cancelled) << QStringLiteral("cancelled");
        QTest::newRow("oom") << int(RunStatus::Oom) << QStringLiteral("oom");
        QTest::newRow("engine_error")
            << int(RunStatus::EngineError) << QStringLiteral("engine_error");
        QTest::newRow("interrupted")
            << int(RunStatus::Interrupted) << QStringLiteral("interrupted");
    }

    void statusNames()
    {
        QFETCH(int, status);
        QFETCH(QString, name);
        const auto value = static_cast<RunStatus>(status);
        QCOMPARE(RunStatusTraits::toString(value), name);
        QCOMPARE(RunStatusTraits::fromString(name), std::optional<RunStatus>(value));
        QCOMPARE(RunStatusTraits::isFinal(value), value != RunStatus::Running);
    }

    void unknownStatusNames()
    {
        for (const char* text : {"", "Running", "OK", "engine-error", "interrupted ", "done"})
            QVERIFY2(!RunStatusTraits::fromString(QString::fromLatin1(text)), text);
    }

    void defaultPathIsSharedByTheAppAndTheServer()
    {
        const QString path = HistoryStore::defaultPath();
        QVERIFY(
            path.startsWith(QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)));
        QVERIFY(path.endsWith(QLatin1String("/code-sandbox/history.sqlite")));
    }

    void createsAPrivateWalDatabase()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString folder = dir.filePath(QStringLiteral("data/code-sandbox"));
        const QString path = folder + QStringLiteral("/history.sqlite");
        {
            auto store = openStore(path);
            QVERIFY(store);
            QCOMPARE(store->schemaVersion(), HistorySchema::latestVersion());
            QCOMPARE(store->path(), path);
            QVERIFY(store->ledger().recordStart(newRun(QStringLiteral("1"))));
            QCOMPARE(modeOf(folder), mode_t(0700));
            QCOMPARE(modeOf(path), mode_t(0600));
            // SQLite gives its side files the mode of the database.
            QCOMPARE(modeOf(path + QStringLiteral("-wal")), mode_t(0600));
            QCOMPARE(modeOf(path + QStringLiteral("-shm")), mode_t(0600));

            RawDatabase raw(path);
            QVERIFY(raw.isOpen());
            QCOMPARE(raw.value(QStringLiteral("PRAGMA journal_mode")).toString(),
                     QStringLiteral("wal"));
            QCOMPARE(raw.value(QStringLiteral("PRAGMA auto_vacuum")).toInt(), 2);
            QCOMPARE(raw.value(QStringLiteral("PRAGMA application_id")).toInt(),
                     HistorySchema::kApplicationId);
            QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(),
                     HistorySchema::latestVersion());
        }
        // Opening again changes nothing.
        auto again = openStore(path);
        QVERIFY(again);
        QCOMPARE(*again->queries().count({}), 1);
    }

    void roundTrip_data()
    {
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("stdoutText");
        QTest::addColumn<QString>("stderrText");
        QTest::addColumn<QVariant>("exitCode"); // null: none
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("errorMessage");

        QTest::newRow("ascii") << QStringLiteral("print('hi')") << QStringLiteral("hi\n")
                               << QString() << QVariant(0) << QStringLiteral("ok") << QString();
        const QString unicode = QStringLiteral("héllo wörld — 你好 — 🎉🚀 — עברית — e\u0301 — "
                                               "\u200b\ufeff");
        QTest::newRow("unicode") << (QStringLiteral("print('") + unicode + QStringLiteral("')"))
                                 << unicode << (QStringLiteral("Traceback: ") + unicode)
                                 << QVariant(1) << QStringLiteral("error") << QString();
        QTest::newRow("NUL characters")
            << QStringLiteral("print('a\\0b')") << QString(QStringLiteral("a") + QChar(0) + u'b')
            << QString(QChar(0)) << QVariant(0) << QStringLiteral("ok") << QString();
        QTest::newRow("empty everything") << QString() << QString() << QString() << QVariant(0)
                                          << QStringLiteral("ok") << QString();
        QString big;
        constexpr qsizetype mebibyte = qsizetype(1024) * 1024;
        big.reserve(mebibyte);
        while (big.size() < mebibyte)
            big += QStringLiteral("line ab€😀 %1\n").arg(big.size());
        big.truncate(mebibyte);
        QTest::newRow("1 MiB outputs") << QStringLiteral("print('x' * 2**20)") << big << big
                                       << QVariant(0) << QStringLiteral("ok") << QString();
        QTest::newRow("engine error, no exit code")
            << QStringLiteral("print(1)") << QString() << QString()
            << QVariant(QMetaType::fromType<int>()) << QStringLiteral("engine_error")
            << QStringLiteral("Podman is not running: start it with `systemctl --user start "
                              "podman.socket`.");
        QTest::newRow("timeout, killed")
            << QStringLiteral("while True: pass") << QString() << QString() << QVariant(137)
            << QStringLiteral("timeout") << QString();
        QTest::newRow("negative exit code") << QStringLiteral("x") << QString() << QString()
                                            << QVariant(-1) << QStringLiteral("error") << QString();
    }

    void roundTrip()
    {
        QFETCH(QString, code);
        QFETCH(QString, stdoutText);
        QFETCH(QString, stderrText);
        QFETCH(QVariant, exitCode);
        QFETCH(QString, status);
        QFETCH(QString, errorMessage);

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);

        RunRecord run = newRun(code);
        run.transport = QStringLiteral("http");
        run.sessionId = QStringLiteral("9f1c-é");
        run.clientName = QStringLiteral("Клиент");
        run.serverPid = 2147483648LL; // beyond 32 bits
        run.startedAt = csm::utcFromMSecsSinceEpoch(1712345678901);
        const auto id = store->ledger().recordStart(run);
        QVERIFY2(id, qPrintable(id.error()));
        QVERIFY(id.error().isEmpty());

        const auto started = store->queries().get(*id);
        QVERIFY(started);
        QCOMPARE(started->status, RunStatus::Running);
        QVERIFY(!started->endedAt.isValid());
        QVERIFY(!started->exitCode);
        QCOMPARE(started->startedAt, run.startedAt);
        QVERIFY(started->code == code);

        RunRecord end;
        end.status = *RunStatusTraits::fromString(status);
        end.stdoutText = stdoutText;
        end.stderrText = stderrText;
        end.stdoutTruncated = stdoutText.size() >= qsizetype(1024) * 1024;
        end.stderrTruncated = true;
        if (!exitCode.isNull())
            end.exitCode = exitCode.toInt();
        end.durationMs = 98765;
        end.endedAt = csm::utcFromMSecsSinceEpoch(1712345678901 + 98765);
        end.errorMessage = errorMessage;
        const Expected<void> recorded = store->ledger().recordEnd(*id, end);
        QVERIFY2(recorded, qPrintable(recorded.error()));

        const auto loaded = store->queries().get(*id);
        QVERIFY(loaded);
        QCOMPARE(loaded->id, *id);
        QVERIFY(loaded->changeSeq > started->changeSeq);
        QCOMPARE(loaded->serverInstance, run.serverInstance);
        QCOMPARE(loaded->serverPid, run.serverPid);
        QCOMPARE(loaded->hostName, run.hostName);
        QCOMPARE(loaded->transport, run.transport);
        QCOMPARE(loaded->sessionId, run.sessionId);
        QCOMPARE(loaded->clientName, run.clientName);
        QCOMPARE(loaded->clientVersion, run.clientVersion);
        QCOMPARE(loaded->tool, run.tool);
        QCOMPARE(loaded->language, run.language);
        QCOMPARE(loaded->image, run.image);
        QVERIFY(loaded->code == code);
        QCOMPARE(loaded->limits, run.limits);
        // QVERIFY, not QCOMPARE: a failure must not print a megabyte.
        QVERIFY(loaded->stdoutText == stdoutText);
        QVERIFY(loaded->stderrText == stderrText);
        QCOMPARE(loaded->stdoutTruncated, end.stdoutTruncated);
        QCOMPARE(loaded->stderrTruncated, true);
        QCOMPARE(loaded->exitCode, end.exitCode);
        QCOMPARE(loaded->durationMs, 98765);
        QCOMPARE(loaded->status, end.status);
        QCOMPARE(loaded->startedAt, run.startedAt);
        QCOMPARE(loaded->endedAt, end.endedAt);
        QCOMPARE(loaded->endedAt.timeSpec(), Qt::UTC);
        QCOMPARE(loaded->errorMessage, errorMessage);
    }

    void recordStartFillsInWhatIsMissing()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        RunRecord bare; // every string null, no start time, a misleading status
        bare.status = RunStatus::Ok;
        bare.endedAt = QDateTime::currentDateTimeUtc();
        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        const auto id = store->ledger().recordStart(bare);
        QVERIFY2(id, qPrintable(id.error()));
        const auto loaded = store->queries().get(*id);
        QVERIFY(loaded);
        QCOMPARE(loaded->status, RunStatus::Running);
        QVERIFY(!loaded->endedAt.isValid());
        QVERIFY(loaded->startedAt.toMSecsSinceEpoch() >= before);
        QVERIFY(loaded->startedAt.toMSecsSinceEpoch() <= QDateTime::currentMSecsSinceEpoch());
        QVERIFY(loaded->code.isEmpty());
        QVERIFY(loaded->limits.isEmpty());
        // Ended with a null end time: now.
        RunRecord end = ended(RunStatus::Ok);
        end.endedAt = {};
        QVERIFY(store->ledger().recordEnd(*id, end));
        QVERIFY(store->queries().get(*id)->endedAt.isValid());
    }

    void unenforcedLimitsJoinTheRunsLimits()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        RunRecord run;
        run.limits = QJsonObject{{QStringLiteral("memory_bytes"), 536870912},
                                 {QStringLiteral("allow_unlimited"), true}};
        const auto id = store->ledger().recordStart(run);
        QVERIFY(id);
        RunRecord end = ended(RunStatus::Ok);
        end.unenforcedLimits = {QStringLiteral("memory"), QStringLiteral("pids")};
        const Expected<void> recorded = store->ledger().recordEnd(*id, end);
        QVERIFY2(recorded, qPrintable(recorded.error()));
        const QJsonObject limits = store->queries().get(*id)->limits;
        QCOMPARE(limits.value(QLatin1String("memory_bytes")).toInt(), 536870912);
        QCOMPARE(limits.value(QLatin1String("unenforced")).toArray(),
                 (QJsonArray{QStringLiteral("memory"), QStringLiteral("pids")}));

        // A run whose limits all held keeps its limits as they were.
        const auto other = store->ledger().recordStart(run);
        QVERIFY(store->ledger().recordEnd(*other, ended(RunStatus::Ok)));
        QCOMPARE(store->queries().get(*other)->limits, run.limits);
    }

    void recordEndRefusesWhatItCannotStore()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const auto id = store->ledger().recordStart(newRun(QStringLiteral("1")));
        QVERIFY(id);
        const Expected<void> stillRunning =
            store->ledger().recordEnd(*id, ended(RunStatus::Running));
        QVERIFY(!stillRunning);
        QVERIFY(stillRunning.error().contains(QLatin1String("running")));
        QCOMPARE(store->queries().get(*id)->status, RunStatus::Running);

        const qint64 seq = *store->queries().lastChangeSeq();
        const Expected<void> gone = store->ledger().recordEnd(*id + 100, ended(RunStatus::Ok));
        QVERIFY(!gone);
        QVERIFY(gone.error().contains(QLatin1String("no such run")));
        QCOMPARE(*store->queries().lastChangeSeq(), seq); // rolled back, counter included

        QVERIFY(store->ledger().recordEnd(*id, ended(RunStatus::Ok)));
        QVERIFY(!store->queries().get(*id + 100));
        QVERIFY(store->queries().get(*id + 100).error() ==
                QStringLiteral("no run %1").arg(*id + 100));
    }

    void filesAreRecordedAndReloaded()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const QString key = QStringLiteral("0f6e5a3c-1b2d-4e5f-8a9b-0c1d2e3f4a5b");
        const RunRecord start = runWithFiles(key);
        const auto id = store->ledger().recordStart(start);
        QVERIFY(id);
        const auto running = store->queries().get(*id);
        QVERIFY(running);
        QCOMPARE(running->filesKey, key);
        QCOMPARE(running->files, start.files);
        QCOMPARE(running->outputFileCount, 0);

        const RunRecord end = endWithFiles(key);
        QVERIFY(store->ledger().recordEnd(*id, end));
        const auto plain = store->ledger().recordStart(newRun(QStringLiteral("no files")));
        QVERIFY(plain);
        QVERIFY(store->ledger().recordEnd(*plain, ended(RunStatus::Ok)));

        store.reset();
        store = openStore(historyPath(dir));
        QVERIFY(store);
        const auto run = store->queries().get(*id);
        QVERIFY(run);
        QCOMPARE(run->files, start.files + end.files); // inputs first, in order
        QCOMPARE(run->outputFileCount, 1);             // the skipped one is not counted
        QVERIFY(store->queries().get(*plain)->files.isEmpty());
        QVERIFY(store->queries().get(*plain)->filesKey.isEmpty());

        // A list of full runs has their files; a list for a table has the count and the key only.
        QCOMPARE(store->queries().list({})->at(1).files, start.files + end.files);
        HistoryQuery slim;
        slim.includeContent = false;
        const QList<RunRecord> listed = *store->queries().list(slim);
        QCOMPARE(listed.size(), 2);
        QCOMPARE(listed.at(1).outputFileCount, 1);
        QCOMPARE(listed.at(1).filesKey, key);
        QVERIFY(listed.at(1).files.isEmpty());
        QCOMPARE(listed.at(0).outputFileCount, 0);
        // Oldest change first: the run with files ended before the other one.
        QCOMPARE(store->queries().changedSince(0)->constFirst().outputFileCount, 1);
        QCOMPARE(store->queries().changedSince(0)->constLast().outputFileCount, 0);
    }

    // A run's connections through the egress proxy are kept in order, read back by get(), and
    // go with the run.
    void connectionsAreKeptWithTheirRun()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const auto id = store->ledger().recordStart(newRun(QStringLiteral("import requests")));
        QVERIFY(id);
        RunRecord end = ended(RunStatus::Ok);
        const QDateTime started = QDateTime::fromMSecsSinceEpoch(1'780'000'000'123);
        end.connections = {
            {QStringLiteral("pypi.org"), 443, true, QStringLiteral("pypi.org:443: a public host"),
             QStringLiteral("151.101.0.223"), 517, 48'211, started, 840},
            {QStringLiteral("169.254.169.254"), 80, false,
             QStringLiteral("169.254.169.254:80: 169.254.169.254 is link-local"), QString(), 0, 0,
             started.addMSecs(900), 1},
        };
        end.connectionsNotListed = 7;
        QVERIFY(store->ledger().recordEnd(*id, end));
        const auto other = store->ledger().recordStart(newRun(QStringLiteral("print(1)")));
        QVERIFY(other);
        QVERIFY(store->ledger().recordEnd(*other, ended(RunStatus::Ok)));

        store.reset();
        store = openStore(historyPath(dir));
        QVERIFY(store);
        QCOMPARE(store->queries().get(*id)->connections, end.connections);
        QCOMPARE(store->queries().get(*id)->connectionsNotListed, 7);
        QVERIFY(store->queries().get(*other)->connections.isEmpty());
        QCOMPARE(store->queries().get(*other)->connectionsNotListed, 0);
        QVERIFY(store->ledger().remove({*id}));
        RawDatabase raw(historyPath(dir));
        QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM run_connections")).toInt(), 0);
    }

    void sessionCellsAreRecordedListedAndFiltered()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        // Two sessions named "analysis" one after the other (the first died), and one-shot runs.
        const auto cell = [&](const QString& key, const QString& code, int number) {
            RunRecord run = newRun(code);
            run.sessionName = QStringLiteral("analysis");
            run.sessionKey = key;
            run.clientName = QStringLiteral("claude-code");
            const auto id = store->ledger().recordStart(run);
            if (!id)
                return qint64(0);
            RunRecord end;
            end.status = number > 0 ? RunStatus::Ok : RunStatus::Error;
            end.cellNumber = number;
            return store->ledger().recordEnd(*id, end) ? *id : qint64(0);
        };
        const qint64 a1 = cell(QStringLiteral("code-sandbox-x-1"), QStringLiteral("df = 1"), 1);
        QVERIFY(store->ledger().recordStart(newRun(QStringLiteral("one-shot"))));
        const qint64 a2 = cell(QStringLiteral("code-sandbox-x-1"), QStringLiteral("df"), 2);
        // Refused while another cell ran: in the session, but never a cell of it.
        const qint64 refused = cell(QStringLiteral("code-sandbox-x-1"), QStringLiteral("x"), 0);
        const qint64 b1 = cell(QStringLiteral("code-sandbox-x-9"), QStringLiteral("df = 2"), 1);
        QVERIFY(a1 && a2 && refused && b1);

        const auto loaded = store->queries().get(a2);
        QVERIFY(loaded);
        QCOMPARE(loaded->sessionName, QStringLiteral("analysis"));
        QCOMPARE(loaded->sessionKey, QStringLiteral("code-sandbox-x-1"));
        QCOMPARE(loaded->cellNumber, 2);
        QCOMPARE(store->queries().get(refused)->cellNumber, 0);

        const QList<HistoryInterpreterSession> sessions = *store->queries().sessions();
        QCOMPARE(sessions.size(), 2);
        QCOMPARE(sessions.at(0).key, QStringLiteral("code-sandbox-x-9")); // most recent first
        QCOMPARE(sessions.at(1).key, QStringLiteral("code-sandbox-x-1"));
        QCOMPARE(sessions.at(1).name, QStringLiteral("analysis"));
        QCOMPARE(sessions.at(1).clientName, QStringLiteral("claude-code"));
        QCOMPARE(sessions.at(1).language, QStringLiteral("python"));
        QCOMPARE(sessions.at(1).calls, 3);
        QCOMPARE(store->queries().sessions(1)->size(), 1);

        HistoryQuery query;
        query.sessionKey = QStringLiteral("code-sandbox-x-1");
        QList<qint64> ids;
        for (const RunRecord& run : *store->queries().list(query))
            ids << run.id;
        QCOMPARE(ids, QList<qint64>({refused, a2, a1}));
        QCOMPARE(*store->queries().count(query), 3);
    }

    void deletingARunDeletesItsFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const QString key = makeRunFolder(*store);
        QVERIFY(!key.isEmpty());
        const QString keptKey = makeRunFolder(*store);
        QVERIFY(!keptKey.isEmpty());
        const auto id = store->ledger().recordStart(runWithFiles(key));
        QVERIFY(id);
        QVERIFY(store->ledger().recordEnd(*id, endWithFiles(key)));
        const auto kept = store->ledger().recordStart(runWithFiles(keptKey));
        QVERIFY(kept);
        const RunFilesStore files(store->filesRoot());
        QCOMPARE(files.root(), dir.filePath(QStringLiteral("run-files")));
        QVERIFY(QFileInfo::exists(files.folder(key)));

        QVERIFY(store->ledger().remove({*id}));
        QVERIFY(!QFileInfo::exists(files.folder(key)));
        QVERIFY(QFileInfo::exists(files.folder(keptKey)));
        RawDatabase raw(historyPath(dir));
        QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM run_files WHERE run_id = ?"), {*id})
                     .toInt(),
                 0);
        QCOMPARE(
            raw.value(QStringLiteral("SELECT count(*) FROM run_files WHERE run_id = ?"), {*kept})
                .toInt(),
            1);
    }

    void pruningDeletesTheRunsFolders()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const RunFilesStore files(store->filesRoot());
        // The oldest is still running: it stays, and so do its files.
        const QStringList keys = addRunsWithFolders(*store, 4);
        QCOMPARE(keys.size(), 4);
        RetentionPolicy policy;
        policy.maxRuns = 2;
        policy.maxAgeDays = 0;
        QCOMPARE(*store->retention().prune(policy), 1);
        QVERIFY(QFileInfo::exists(files.folder(keys.at(0))));
        QVERIFY(!QFileInfo::exists(files.folder(keys.at(1))));
        QVERIFY(QFileInfo::exists(files.folder(keys.at(2))));
        QVERIFY(QFileInfo::exists(files.folder(keys.at(3))));

        // The size limit as well (a budget of one byte: every ended run goes).
        QCOMPARE(*store->retention().pruneToSize(1), 2);
        QVERIFY(QFileInfo::exists(files.folder(keys.at(0))));
        QVERIFY(!QFileInfo::exists(files.folder(keys.at(2))));
        QVERIFY(!QFileInfo::exists(files.folder(keys.at(3))));
    }

    void filesArePrunedToTheirBudget()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const RunFilesStore files(store->filesRoot());
        // Four runs of 400 KiB of files each, the first one oldest and still running.
        const QStringList keys = addRunsWithFolders(*store, 4, 400 * 1024);
        QCOMPARE(keys.size(), 4);
        QCOMPARE(*store->retention().pruneFiles(0), 0); // no limit
        QCOMPARE(*store->retention().pruneFiles(1024 * 1024), 2);
        QVERIFY(QFileInfo::exists(files.folder(keys.at(0)))); // running: kept
        QVERIFY(!QFileInfo::exists(files.folder(keys.at(1))));
        QVERIFY(!QFileInfo::exists(files.folder(keys.at(2))));
        QVERIFY(QFileInfo::exists(files.folder(keys.at(3))));
        QVERIFY(files.totalBytes() <= 1024 * 1024);
        // The runs stay in the history.
        QCOMPARE(*store->queries().count({}), 4);
    }

    void list_data()
    {
        QTest::addColumn<HistoryQuery>("query");
        QTest::addColumn<QList<qint64>>("ids");
        QTest::addColumn<qint64>("count"); // ignores limit and offset

        const auto query = [](auto&& change) {
            HistoryQuery q;
            q.limit = 0;
            change(q);
            return q;
        };
        const auto unchanged = [](HistoryQuery&) {
        };
        QTest::newRow("everything, newest first")
            << query(unchanged) << QList<qint64>{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1} << 12LL;
        QTest::newRow("default limit")
            << HistoryQuery{} << QList<qint64>{12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1} << 12LL;
        QTest::newRow("limit") << query([](HistoryQuery& q) { q.limit = 3; })
                               << QList<qint64>{12, 11, 10} << 12LL;
        QTest::newRow("limit and offset") << query([](HistoryQuery& q) {
            q.limit = 3;
            q.offset = 3;
        }) << QList<qint64>{9, 8, 7} << 12LL;
        QTest::newRow("offset past the end") << query([](HistoryQuery& q) {
            q.limit = 3;
            q.offset = 12;
        }) << QList<qint64>{} << 12LL;
        QTest::newRow("offset without limit")
            << query([](HistoryQuery& q) { q.offset = 10; }) << QList<qint64>{2, 1} << 12LL;
        QTest::newRow("keyset page") << query([](HistoryQuery& q) {
            q.limit = 3;
            q.beforeId = 10;
        }) << QList<qint64>{9, 8, 7} << 9LL;
        QTest::newRow("last keyset page") << query([](HistoryQuery& q) {
            q.limit = 3;
            q.beforeId = 3;
        }) << QList<qint64>{2, 1} << 2LL;
        QTest::newRow("since id") << query([](HistoryQuery& q) { q.sinceId = 9; })
                                  << QList<qint64>{12, 11, 10} << 3LL;
        QTest::newRow("between ids") << query([](HistoryQuery& q) {
            q.sinceId = 3;
            q.beforeId = 6;
        }) << QList<qint64>{5, 4} << 2LL;
        QTest::newRow("status ok") << query([](HistoryQuery& q) { q.statuses = {RunStatus::Ok}; })
                                   << QList<qint64>{10, 8, 4, 1} << 4LL;
        QTest::newRow("running or timed out") << query([](HistoryQuery& q) {
            q.statuses = {RunStatus::Running, RunStatus::Timeout};
        }) << QList<qint64>{12, 11, 3} << 3LL;
        QTest::newRow("a status nobody has")
            << query([](HistoryQuery& q) { q.statuses = {RunStatus::Interrupted}; })
            << QList<qint64>{} << 0LL;
        QTest::newRow("language") << query([](HistoryQuery& q) {
            q.language = QStringLiteral("python");
        }) << QList<qint64>{11, 9, 7, 5, 3, 1}
                                  << 6LL;
        QTest::newRow("language is matched exactly")
            << query([](HistoryQuery& q) { q.language = QStringLiteral("py"); }) << QList<qint64>{}
            << 0LL;
        QTest::newRow("client substring, any case")
            << query([](HistoryQuery& q) { q.clientName = QStringLiteral("claude"); })
            << QList<qint64>{12, 9, 6, 3} << 4LL;
        QTest::newRow("client: % is literal")
            << query([](HistoryQuery& q) { q.clientName = QStringLiteral("%"); })
            << QList<qint64>{11, 8, 5, 2} << 4LL;
        QTest::newRow("client: _ is literal")
            << query([](HistoryQuery& q) { q.clientName = QStringLiteral("1_0"); })
            << QList<qint64>{} << 0LL;
        QTest::newRow("client: backslash is literal")
            << query([](HistoryQuery& q) { q.clientName = QStringLiteral("\\"); })
            << QList<qint64>{} << 0LL;
        QTest::newRow("text in code")
            << query([](HistoryQuery& q) { q.text = QStringLiteral("50% off"); })
            << QList<qint64>{5} << 1LL;
        QTest::newRow("text: % is literal")
            << query([](HistoryQuery& q) { q.text = QStringLiteral("%"); }) << QList<qint64>{5}
            << 1LL;
        QTest::newRow("text: _ is literal")
            << query([](HistoryQuery& q) { q.text = QStringLiteral("_"); }) << QList<qint64>{5}
            << 1LL;
        QTest::newRow("text in stdout and stderr, any case")
            << query([](HistoryQuery& q) { q.text = QStringLiteral("needle"); })
            << QList<qint64>{9, 7} << 2LL;
        QTest::newRow("text nowhere")
            << query([](HistoryQuery& q) { q.text = QStringLiteral("haystack"); })
            << QList<qint64>{} << 0LL;
        const QDateTime base = m_listBase;
        QTest::newRow("time range") << query([base](HistoryQuery& q) {
            q.startedFrom = base.addSecs(180);
            q.startedBefore = base.addSecs(360);
        }) << QList<qint64>{5, 4, 3} << 3LL;
        QTest::newRow("started from")
            << query([base](HistoryQuery& q) { q.startedFrom = base.addSecs(660); })
            << QList<qint64>{12, 11} << 2LL;
        QTest::newRow("filters combine") << query([](HistoryQuery& q) {
            q.language = QStringLiteral("python");
            q.statuses = {RunStatus::Ok, RunStatus::Error};
        }) << QList<qint64>{9, 1} << 2LL;
        QTest::newRow("keyset page of a filter") << query([](HistoryQuery& q) {
            q.language = QStringLiteral("python");
            q.beforeId = 9;
            q.limit = 2;
        }) << QList<qint64>{7, 5} << 4LL;
    }

    void list()
    {
        QFETCH(HistoryQuery, query);
        QFETCH(QList<qint64>, ids);
        QFETCH(qint64, count);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        addListFixture(*store);
        if (QTest::currentTestFailed())
            return;
        const Expected<QList<RunRecord>> listed = store->queries().list(query);
        QVERIFY2(listed, qPrintable(listed.error()));
        const QList<RunRecord>& runs = *listed;
        QCOMPARE(idsOf(runs), ids);
        QCOMPARE(*store->queries().count(query), count);
    }

    void listWithoutContent()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        addListFixture(*store);
        HistoryQuery query;
        query.includeContent = false;
        const QList<RunRecord> runs = *store->queries().list(query);
        QCOMPARE(runs.size(), 12);
        QCOMPARE(runs.at(2).id, 10);
        QVERIFY(runs.at(2).code.isEmpty());
        QVERIFY(runs.at(2).stdoutText.isEmpty());
        QCOMPARE(runs.at(2).status, RunStatus::Ok);
        QCOMPARE(runs.at(2).clientName, QStringLiteral("cursor-vscode"));
        QCOMPARE(runs.at(2).limits.value(QStringLiteral("memory")).toString(),
                 QStringLiteral("512m"));

        query.previewChars = 7;
        const QList<RunRecord> previews = *store->queries().list(query);
        QCOMPARE(previews.at(2).code, QStringLiteral("print('"));
        QCOMPARE(previews.at(2).stdoutText, QStringLiteral("out 10"));
        QCOMPARE(previews.at(3).stderrText, QStringLiteral("a NEEDL"));

        // Stderr's end instead, where a failed program says why; the rest as before.
        query.stderrTailChars = 9;
        const QList<RunRecord> tails = *store->queries().list(query);
        QCOMPARE(tails.at(3).stderrText, QStringLiteral("in stderr"));
        QCOMPARE(tails.at(3).code, QStringLiteral("print('"));
        // get() always loads everything.
        QCOMPARE(store->queries().get(10)->code, QStringLiteral("print('run 10')"));
    }

    void changedSinceSeesEveryChangeOnce()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto writer = openStore(historyPath(dir));
        auto monitor = openStore(historyPath(dir)); // a second connection, as another process
        QVERIFY(writer && monitor);
        QCOMPARE(*monitor->queries().lastChangeSeq(), 0);
        QVERIFY(monitor->queries().changedSince(0)->isEmpty());

        const auto first = writer->ledger().recordStart(newRun(QStringLiteral("first")));
        const auto second = writer->ledger().recordStart(newRun(QString(500, u'y')));
        QVERIFY(first && second);
        QList<RunRecord> changes = *monitor->queries().changedSince(0);
        QCOMPARE(idsOf(changes), (QList<qint64>{*first, *second}));
        QCOMPARE(changes.at(0).changeSeq, 1);
        QCOMPARE(changes.at(1).changeSeq, 2);
        QCOMPARE(changes.at(1).code.size(), 200); // a preview by default
        QCOMPARE(monitor->queries().changedSince(0, 10, 0)->at(1).code, QString());

        QVERIFY(writer->ledger().recordEnd(*first, ended(RunStatus::Ok, QStringLiteral("done"))));
        changes = *monitor->queries().changedSince(2);
        QCOMPARE(idsOf(changes), QList<qint64>{*first});
        QCOMPARE(changes.at(0).status, RunStatus::Ok);
        QCOMPARE(changes.at(0).changeSeq, 3);
        QCOMPARE(*monitor->queries().lastChangeSeq(), 3);

        // Paging by the last changeSeq seen: oldest change first, each exactly once.
        QList<qint64> paged;
        qint64 seen = 0;
        for (;;) {
            const QList<RunRecord> page = *monitor->queries().changedSince(seen, 1);
            if (page.isEmpty())
                break;
            paged += page.constFirst().id;
            seen = page.constFirst().changeSeq;
        }
        QCOMPARE(paged, (QList<qint64>{*second, *first}));
        QCOMPARE(seen, 3);

        // Deletions do not show up as changes but move deletionSeq.
        const qint64 deletions = *monitor->queries().deletionSeq();
        QVERIFY(deletions >= 0);
        QVERIFY(writer->ledger().remove({*second}));
        QCOMPARE(*monitor->queries().deletionSeq(), deletions + 1);
        QVERIFY(monitor->queries().changedSince(3)->isEmpty());
        QCOMPARE(idsOf(*monitor->queries().changedSince(0)), QList<qint64>{*first});
    }

    // The output of a running run, as its server writes it for live views: seen by another
    // connection as a change, replaced by the run's end, refused once the run has ended.
    void runningOutputIsAChangeUntilTheEnd()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto writer = openStore(historyPath(dir));
        auto monitor = openStore(historyPath(dir));
        QVERIFY(writer && monitor);
        const auto id = writer->ledger().recordStart(newRun(QStringLiteral("print(1)")));
        QVERIFY(id);
        const qint64 before = *monitor->queries().lastChangeSeq();
        QVERIFY(writer->ledger().recordOutput(*id, QStringLiteral("so far\n"),
                                              QStringLiteral("warn\n")));
        const QList<RunRecord> changes = *monitor->queries().changedSince(before);
        QCOMPARE(idsOf(changes), QList<qint64>{*id});
        QCOMPARE(changes.at(0).status, RunStatus::Running);
        QCOMPARE(monitor->queries().get(*id)->stdoutText, QStringLiteral("so far\n"));
        QCOMPARE(monitor->queries().get(*id)->stderrText, QStringLiteral("warn\n"));

        QVERIFY(writer->ledger().recordEnd(*id, ended(RunStatus::Ok, QStringLiteral("all\n"))));
        QCOMPARE(monitor->queries().get(*id)->stdoutText, QStringLiteral("all\n"));
        // A late write (the end won the race) changes nothing and says why.
        const Expected<void> late =
            writer->ledger().recordOutput(*id, QStringLiteral("late"), QString());
        QVERIFY(!late);
        QVERIFY2(late.error().contains(QLatin1String("not running")), qPrintable(late.error()));
        QCOMPARE(monitor->queries().get(*id)->stdoutText, QStringLiteral("all\n"));
    }

    // The desktop app's Stop: a request from one connection, taken once by the run's server
    // on another, only for the runs it asks about; none for runs that are not running.
    void stopRequestsAreTakenOnce()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto server = openStore(historyPath(dir));
        auto app = openStore(historyPath(dir));
        QVERIFY(server && app);
        const auto first = server->ledger().recordStart(newRun(QStringLiteral("a")));
        const auto second = server->ledger().recordStart(newRun(QStringLiteral("b")));
        const auto done = server->ledger().recordStart(newRun(QStringLiteral("c")));
        QVERIFY(first && second && done);
        QVERIFY(server->ledger().recordEnd(*done, ended(RunStatus::Ok, QString())));
        QVERIFY(server->stopRequests().take({*first, *second})->isEmpty());

        QVERIFY(app->stopRequests().request(*first));
        QVERIFY(app->stopRequests().request(*first)); // pressed twice: still one request
        const Expected<void> refused = app->stopRequests().request(*done);
        QVERIFY(!refused);
        QVERIFY2(refused.error().contains(QLatin1String("not running")),
                 qPrintable(refused.error()));
        QVERIFY(!app->stopRequests().request(*done + 100));
        // Another server's runs are not handed to this one.
        QVERIFY(server->stopRequests().take({*second})->isEmpty());
        QCOMPARE(*server->stopRequests().take({*first, *second}), QList<qint64>{*first});
        QVERIFY(server->stopRequests().take({*first, *second})->isEmpty());

        // A request the run's end overtook goes with it.
        QVERIFY(app->stopRequests().request(*second));
        QVERIFY(server->ledger().recordEnd(*second, ended(RunStatus::Ok, QString())));
        QCOMPARE(RawDatabase(historyPath(dir))
                     .value(QStringLiteral("SELECT count(*) FROM stop_requests"))
                     .toLongLong(),
                 0);
    }

    // The activity view's numbers: calls per interval by client and by status, and the
    // nearest-rank percentiles of the ended runs' durations, for the runs in the stretch only.
    void activityCountsCallsAndPercentilesPerInterval()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const QDateTime from = QDateTime::fromMSecsSinceEpoch(1'700'000'000'000LL);
        const auto add = [&](qint64 offsetMs, const QString& client, RunStatus status,
                             qint64 durationMs) {
            RunRecord run = newRun(QStringLiteral("x"));
            run.clientName = client;
            run.startedAt = from.addMSecs(offsetMs);
            const auto id = store->ledger().recordStart(run);
            QVERIFY(id);
            if (status == RunStatus::Running)
                return;
            RunRecord end = ended(status, QString());
            end.durationMs = durationMs;
            QVERIFY(store->ledger().recordEnd(*id, end));
        };
        const qint64 hour = 3'600'000;
        // Interval 0: durations 1..20 (claude: 15 ok, 2 errors; codex: 3 ok).
        for (int i = 1; i <= 20; ++i) {
            add(i * 1000, i <= 17 ? QStringLiteral("claude") : QStringLiteral("codex"),
                i == 4 || i == 9 ? RunStatus::Error : RunStatus::Ok, i);
        }
        // Interval 2: one timeout, one still running (no duration); interval 1 is empty.
        add(2 * hour + 5, QStringLiteral("codex"), RunStatus::Timeout, 30'000);
        add(2 * hour + 6, QString(), RunStatus::Running, 0);
        // A call whose program never ran: counted, but no duration of its own.
        add(2 * hour + 7, QString(), RunStatus::EngineError, 0);
        // Outside the stretch: before it, and at its end (excluded).
        add(-1, QStringLiteral("claude"), RunStatus::Ok, 1);
        add(3 * hour, QStringLiteral("claude"), RunStatus::Ok, 1);

        const auto report = store->queries().activity({from, from.addMSecs(3 * hour), hour, {}});
        QVERIFY2(report, qPrintable(report.error()));
        QCOMPARE(report->query.bucketCount(), 3);
        QCOMPARE(report->totalCalls, 23);
        QCOMPARE(report->clients.size(), 3);
        QCOMPARE(report->clients.at(0).client, QStringLiteral("claude"));
        QCOMPARE(report->clients.at(0).calls, (QList<int>{17, 0, 0}));
        QCOMPARE(report->clients.at(1).client, QStringLiteral("codex"));
        QCOMPARE(report->clients.at(1).calls, (QList<int>{3, 0, 1}));
        QCOMPARE(report->clients.at(2).client, QString());
        QCOMPARE(report->clients.at(2).calls, (QList<int>{0, 0, 2}));
        QCOMPARE(report->statuses.size(), 5);
        QCOMPARE(report->statuses.at(0).status, RunStatus::Running);
        QCOMPARE(report->statuses.at(0).calls, (QList<int>{0, 0, 1}));
        QCOMPARE(report->statuses.at(1).status, RunStatus::Ok);
        QCOMPARE(report->statuses.at(1).calls, (QList<int>{18, 0, 0}));
        QCOMPARE(report->statuses.at(2).status, RunStatus::Error);
        QCOMPARE(report->statuses.at(2).calls, (QList<int>{2, 0, 0}));
        QCOMPARE(report->statuses.at(3).status, RunStatus::Timeout);
        QCOMPARE(report->statuses.at(3).total, 1);
        QCOMPARE(report->statuses.at(4).status, RunStatus::EngineError);
        // Nearest rank of 1..20: the 10th and the 19th; the engine error's 0 is not a duration.
        QCOMPARE(report->p50Ms, (QList<qint64>{10, -1, 30'000}));
        QCOMPARE(report->p95Ms, (QList<qint64>{19, -1, 30'000}));
        QCOMPARE(report->maxMs, (QList<qint64>{20, -1, 30'000}));

        // Intervals of their own lengths (local days across a clock change, say).
        ActivityQuery uneven{from,
                             from.addMSecs(3 * hour),
                             hour,
                             {from, from.addMSecs(10'500), from.addMSecs(2 * hour)}};
        const auto cut = store->queries().activity(uneven);
        QVERIFY2(cut, qPrintable(cut.error()));
        QCOMPARE(cut->clients.at(0).calls, (QList<int>{10, 7, 0}));
        QCOMPARE(cut->clients.at(1).calls, (QList<int>{0, 3, 1}));
        QCOMPARE(cut->p50Ms, (QList<qint64>{5, 15, 30'000}));
        QCOMPARE(uneven.bucketStart(3), uneven.before);

        // An empty stretch, and one with nothing in it.
        QCOMPARE(store->queries().activity({from, from, hour, {}})->query.bucketCount(), 0);
        const auto quiet =
            store->queries().activity({from.addMSecs(-10 * hour), from.addMSecs(-hour), hour, {}});
        QVERIFY(quiet);
        QCOMPARE(quiet->totalCalls, 0);
        QCOMPARE(quiet->p50Ms, QList<qint64>(9, -1));
    }

    void countAndRemove()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        QCOMPARE(*store->queries().count({}), 0);
        QList<qint64> ids;
        for (int i = 0; i < 700; ++i) {
            const auto id = store->ledger().recordStart(newRun(QString::number(i)));
            QVERIFY(id);
            ids += *id;
        }
        QCOMPARE(*store->queries().count({}), 700);
        const qint64 deletions = *store->queries().deletionSeq();

        QVERIFY(store->ledger().remove({}));
        QVERIFY(store->ledger().remove({999999}));
        QCOMPARE(*store->queries().deletionSeq(), deletions); // nothing was deleted
        // More ids than one statement takes.
        QVERIFY(store->ledger().remove(ids.mid(0, 650)));
        QCOMPARE(*store->queries().count({}), 50);
        QCOMPARE(*store->queries().deletionSeq(), deletions + 1);
        QVERIFY(!store->queries().get(ids.at(0)));
        QVERIFY(store->queries().get(ids.at(650)));

        // Ids are never reused.
        QVERIFY(store->ledger().remove(ids.mid(650)));
        const auto next = store->ledger().recordStart(newRun(QStringLiteral("next")));
        QVERIFY(next);
        QCOMPARE(*next, ids.constLast() + 1);
    }

    void pruneByCount()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        // 1: still running; 2..16 ended; 17: running.
        QVERIFY(store->ledger().recordStart(newRun(QStringLiteral("old but running"))));
        for (int i = 2; i <= 16; ++i) {
            const auto id = store->ledger().recordStart(newRun(QString::number(i)));
            QVERIFY(id);
            QVERIFY(store->ledger().recordEnd(*id, ended(RunStatus::Ok)));
        }
        QVERIFY(store->ledger().recordStart(newRun(QStringLiteral("newest, running"))));

        RetentionPolicy policy;
        policy.maxRuns = 10;
        policy.maxAgeDays = 0;
        QCOMPARE(*store->retention().prune(policy), 6); // 2..7: 8..17 are the newest 10
        HistoryQuery all;
        all.limit = 0;
        QCOMPARE(idsOf(*store->queries().list(all)),
                 (QList<qint64>{17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 1}));
        QCOMPARE(*store->retention().prune(policy), 0);

        policy.maxRuns = 0;
        QCOMPARE(*store->retention().prune(policy), 0); // no limit at all
    }

    void pruneByAge()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const QDateTime now = QDateTime::currentDateTimeUtc();
        const auto add = [&](int daysAgo, bool end) -> qint64 {
            RunRecord run = newRun(QStringLiteral("%1 days ago").arg(daysAgo));
            run.startedAt = now.addDays(-daysAgo);
            const auto id = store->ledger().recordStart(run);
            if (id && end) {
                RunRecord finished = ended(RunStatus::Ok);
                finished.endedAt = run.startedAt.addSecs(1);
                (void)store->ledger().recordEnd(*id, finished);
            }
            return id.valueOr(-1);
        };
        const qint64 ancient = add(400, true);
        const qint64 old = add(91, true);
        const qint64 oldRunning = add(120, false);
        const qint64 recent = add(89, true);
        const qint64 today = add(0, true);

        QCOMPARE(*store->retention().prune(RetentionPolicy{}),
                 2); // the defaults: 10000 runs, 90 days
        QVERIFY(!store->queries().get(ancient));
        QVERIFY(!store->queries().get(old));
        QVERIFY(store->queries().get(oldRunning));
        QVERIFY(store->queries().get(recent));
        QVERIFY(store->queries().get(today));
    }

    void pruneInShortTransactions()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        for (int i = 1; i <= 1200; ++i) {
            const auto id = store->ledger().recordStart(newRun(QString::number(i)));
            QVERIFY(id);
            QVERIFY(store->ledger().recordEnd(*id, ended(RunStatus::Ok)));
        }
        const qint64 deletions = *store->queries().deletionSeq();
        RetentionPolicy policy;
        policy.maxRuns = 100;
        QCOMPARE(*store->retention().prune(policy), 1100);
        QCOMPARE(*store->queries().count({}), 100);
        QCOMPARE(store->queries().list({})->constLast().id, 1101);
        // 500 + 500 + 100: three transactions.
        QCOMPARE(*store->queries().deletionSeq(), deletions + 3);
    }

    void pruneBySize()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const QString output(64 * 1024, u'o');
        RunRecord bigRunning = newRun(QString(64 * 1024, u'c'));
        const auto running = store->ledger().recordStart(bigRunning); // the oldest, and never ended
        QVERIFY(running);
        QList<qint64> endedIds;
        for (int i = 0; i < 40; ++i) {
            const auto id = store->ledger().recordStart(newRun(QString::number(i)));
            QVERIFY(id);
            QVERIFY(store->ledger().recordEnd(*id, ended(RunStatus::Ok, output)));
            endedIds << *id;
        }
        constexpr qint64 budget = 1024 * 1024;
        QVERIFY(*store->retention().contentBytes() > 2 * budget);

        RetentionPolicy policy;
        policy.maxRuns = 0;
        policy.maxAgeDays = 0;
        policy.maxTotalBytes = budget;
        const qint64 deletions = *store->queries().deletionSeq();
        const Expected<int> pruned = store->retention().prune(policy);
        QVERIFY2(pruned, qPrintable(pruned.error()));
        const int deleted = *pruned;
        const qint64 size = *store->retention().contentBytes();
        QVERIFY2(size <= budget, qPrintable(QString::number(size)));
        // No more than it had to: what is left fills the budget but for a run or two.
        QVERIFY2(size > budget - 3 * qint64(output.size()), qPrintable(QString::number(size)));
        // The oldest ended runs went, in as few transactions as it could.
        HistoryQuery all;
        all.limit = 0;
        const QList<qint64> left = idsOf(*store->queries().list(all));
        QCOMPARE(left.size(), 40 - deleted + 1);
        for (qsizetype i = 0; i < left.size() - 1; ++i)
            QCOMPARE(left.at(i), endedIds.at(endedIds.size() - 1 - i));
        QCOMPARE(left.constLast(), *running); // still running, kept whatever its size
        QVERIFY(*store->queries().deletionSeq() > deletions);
        QVERIFY(*store->queries().deletionSeq() <= deletions + 3);

        // Within the budget: nothing more goes.
        QCOMPARE(*store->retention().prune(policy), 0);
        QCOMPARE(*store->retention().pruneToSize(budget), 0);
        // A budget only running runs could meet: every ended run goes, and pruning ends.
        QCOMPARE(*store->retention().pruneToSize(32 * 1024), left.size() - 1);
        QCOMPARE(idsOf(*store->queries().list(all)), QList<qint64>{*running});
        QCOMPARE(*store->retention().pruneToSize(0), 0); // 0: no limit
    }

    // A history far beyond its size (runs from before texts were capped) is cut down in
    // several transactions, each of a bounded size.
    void pruneBySizeInBoundedTransactions()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const QString output(4 * 1024 * 1024, u'o');
        for (int i = 0; i < 40; ++i) { // 160 MiB
            const auto id = store->ledger().recordStart(newRun(QString::number(i)));
            QVERIFY(id);
            QVERIFY(store->ledger().recordEnd(*id, ended(RunStatus::Ok, output)));
        }
        const qint64 deletions = *store->queries().deletionSeq();
        QCOMPARE(*store->retention().pruneToSize(8 * 1024 * 1024), 39);
        QVERIFY(*store->retention().contentBytes() <= 8 * 1024 * 1024);
        // 64 MiB at most per transaction: three of them at least.
        QVERIFY2(*store->queries().deletionSeq() >= deletions + 3,
                 qPrintable(QString::number(*store->queries().deletionSeq() - deletions)));
        QVERIFY(store->queries().get(40));
    }

    // What the file takes on disk stays near the budget, however many runs come: deleted
    // pages are filled again by the next runs.
    void fileStopsGrowingWithASizeLimit()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = historyPath(dir);
        auto store = openStore(path);
        QVERIFY(store);
        constexpr qint64 budget = 1024 * 1024;
        const QString output(64 * 1024, u'o');
        for (int i = 0; i < 200; ++i) { // 12.5 MiB of output in all
            const auto id = store->ledger().recordStart(newRun(QString::number(i)));
            QVERIFY(id);
            QVERIFY(store->ledger().recordEnd(*id, ended(RunStatus::Ok, output)));
            const Expected<int> pruned = store->retention().pruneToSize(budget);
            QVERIFY2(pruned, qPrintable(pruned.error()));
        }
        RawDatabase raw(path);
        QVERIFY(raw.exec(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)")));
        const qint64 fileSize = QFileInfo(path).size();
        QVERIFY2(fileSize < 2 * budget, qPrintable(QString::number(fileSize)));
        QCOMPARE(raw.value(QStringLiteral("PRAGMA integrity_check")).toString(),
                 QStringLiteral("ok"));
    }

    void contentBytesCountsPagesInUse()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const qint64 empty = *store->retention().contentBytes();
        // The schema alone: a page for each table and index.
        QVERIFY2(empty > 0 && empty < 96 * 1024, qPrintable(QString::number(empty)));
        const auto id = store->ledger().recordStart(newRun(QString(512 * 1024, u'c')));
        QVERIFY(id);
        const qint64 full = *store->retention().contentBytes();
        QVERIFY2(full >= empty + 512 * 1024 && full < empty + 600 * 1024,
                 qPrintable(QString::number(full)));
        QVERIFY(store->ledger().remove({*id}));
        // Its pages are free now, not in use (an index page may have split meanwhile).
        QVERIFY(*store->retention().contentBytes() <= empty + 8 * 1024);
    }

    void anOldFileIsMadeAbleToShrink()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = historyPath(dir);
        auto store = openStore(path);
        QVERIFY(store);
        const auto id = store->ledger().recordStart(newRun(QStringLiteral("kept")));
        QVERIFY(id);
        RawDatabase raw(path);
        QCOMPARE(raw.value(QStringLiteral("PRAGMA auto_vacuum")).toInt(), 2); // new files have it
        // As a file made without it (another tool, a build before it) would be.
        QVERIFY(raw.exec(QStringLiteral("PRAGMA auto_vacuum = NONE")));
        QVERIFY(raw.exec(QStringLiteral("VACUUM")));
        QCOMPARE(raw.value(QStringLiteral("PRAGMA auto_vacuum")).toInt(), 0);

        const Expected<void> enabled = store->retention().enableIncrementalVacuum();
        QVERIFY2(enabled, qPrintable(enabled.error()));
        // A new connection: an open one answers from the header it read last.
        QCOMPARE(RawDatabase(path).value(QStringLiteral("PRAGMA auto_vacuum")).toInt(), 2);
        QCOMPARE(store->queries().get(*id)->code, QStringLiteral("kept"));
        QVERIFY(store->retention().enableIncrementalVacuum()); // nothing to do now
    }

    void markInterrupted()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        constexpr qint64 alivePid = 100;
        constexpr qint64 deadPid = 200;
        const auto add = [&](const QString& host, qint64 pid, bool end) -> qint64 {
            RunRecord run = newRun(QStringLiteral("%1/%2").arg(host).arg(pid));
            run.hostName = host;
            run.serverPid = pid;
            run.serverInstance = QStringLiteral("instance-%1").arg(pid);
            const auto id = store->ledger().recordStart(run);
            if (id && end)
                (void)store->ledger().recordEnd(*id, ended(RunStatus::Ok));
            return id.valueOr(-1);
        };
        const qint64 alive = add(kHost, alivePid, false);
        const qint64 dead1 = add(kHost, deadPid, false);
        const qint64 dead2 = add(kHost, deadPid, false);
        const qint64 deadButEnded = add(kHost, deadPid, true);
        const qint64 otherHost = add(kOtherHost, deadPid + 1, false);

        QList<qint64> asked;
        const auto isAlive = [&](qint64 pid) {
            asked += pid;
            return pid == alivePid;
        };
        const qint64 seqBefore = *store->queries().lastChangeSeq();
        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        QCOMPARE(*store->ledger().markInterrupted(kHost, isAlive), 2);
        std::sort(asked.begin(), asked.end());
        QCOMPARE(asked, (QList<qint64>{alivePid, deadPid})); // once each, this host only

        QCOMPARE(store->queries().get(alive)->status, RunStatus::Running);
        for (const qint64 id : {dead1, dead2}) {
            const auto run = store->queries().get(id);
            QCOMPARE(run->status, RunStatus::Interrupted);
            QVERIFY(run->endedAt.toMSecsSinceEpoch() >= before);
            QVERIFY(run->errorMessage.contains(QLatin1String("200")));
        }
        QCOMPARE(store->queries().get(deadButEnded)->status, RunStatus::Ok);
        QCOMPARE(store->queries().get(otherHost)->status, RunStatus::Running);
        // Each marked run is a change of its own.
        QCOMPARE(idsOf(*store->queries().changedSince(seqBefore)), (QList<qint64>{dead1, dead2}));
        QCOMPARE(*store->queries().lastChangeSeq(), seqBefore + 2);

        QCOMPARE(*store->ledger().markInterrupted(kHost, isAlive), 0);
        QCOMPARE(*store->ledger().markInterrupted(QStringLiteral("nowhere"), isAlive), 0);
    }

    void openFails_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<QString>("reason");
        QTest::newRow("folder in the way is a file")
            << QStringLiteral("file in the way") << QStringLiteral("is a file");
        QTest::newRow("path is a folder")
            << QStringLiteral("folder") << QStringLiteral("it is a folder");
        QTest::newRow("unwritable folder")
            << QStringLiteral("unwritable folder") << QStringLiteral("cannot create the file");
        QTest::newRow("garbage file")
            << QStringLiteral("garbage") << QStringLiteral("file is not a database");
        QTest::newRow("newer schema")
            << QStringLiteral("newer") << QStringLiteral("newer version of Code Sandbox");
        QTest::newRow("another program's database")
            << QStringLiteral("foreign") << QStringLiteral("not a Code Sandbox history");
        QTest::newRow("another program's empty database")
            << QStringLiteral("foreign, no tables") << QStringLiteral("not a Code Sandbox history");
    }

    void openFails()
    {
        QFETCH(QString, setup);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString path = historyPath(dir);

        if (setup == QLatin1String("file in the way")) {
            QFile blocker(dir.filePath(QStringLiteral("blocker")));
            QVERIFY(blocker.open(QIODevice::WriteOnly));
            path = dir.filePath(QStringLiteral("blocker/code-sandbox/history.sqlite"));
        } else if (setup == QLatin1String("folder")) {
            QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("history.sqlite")));
        } else if (setup == QLatin1String("unwritable folder")) {
            if (::geteuid() == 0)
                QSKIP("root writes into any folder");
            const QString folder = dir.filePath(QStringLiteral("locked"));
            QVERIFY(QDir(dir.path()).mkdir(folder));
            QVERIFY(QFile::setPermissions(folder, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
            path = folder + QStringLiteral("/history.sqlite");
        } else if (setup == QLatin1String("garbage")) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            QByteArray garbage;
            for (int i = 0; i < 8192; ++i)
                garbage += char('a' + i % 26);
            file.write(garbage);
        } else if (setup == QLatin1String("newer")) {
            RawDatabase raw(path);
            QVERIFY(raw.isOpen());
            QVERIFY(raw.exec(
                QStringLiteral("PRAGMA application_id = %1").arg(HistorySchema::kApplicationId)));
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE runs (id INTEGER PRIMARY KEY, "
                                            "shiny_new_column TEXT)")));
            QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = %1")
                                 .arg(HistorySchema::latestVersion() + 1)));
        } else if (setup == QLatin1String("foreign")) {
            RawDatabase raw(path);
            QVERIFY(raw.isOpen());
            QVERIFY(raw.exec(QStringLiteral("CREATE TABLE bookmarks (url TEXT)")));
            QVERIFY(raw.exec(QStringLiteral("INSERT INTO bookmarks VALUES ('https://x')")));
        } else if (setup == QLatin1String("foreign, no tables")) {
            RawDatabase raw(path);
            QVERIFY(raw.isOpen());
            QVERIFY(raw.exec(QStringLiteral("PRAGMA application_id = 42")));
        }
        const QByteArray bytesBefore = fileBytes(path);

        const auto store = HistoryStore::open(path);
        QVERIFY(!store);
        const QString error = store.error();
        QVERIFY2(error.startsWith(QStringLiteral("Cannot open the run history ") +
                                  QDir::toNativeSeparators(path)),
                 qPrintable(error));
        QVERIFY2(error.contains(reason), qPrintable(error));
        // Whatever was there is left exactly as it was.
        QCOMPARE(fileBytes(path), bytesBefore);
        QVERIFY(!anyHistoryConnectionLeft());
    }

    void newerSchemaMessageNamesTheVersions()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        {
            RawDatabase raw(historyPath(dir));
            QVERIFY(raw.exec(
                QStringLiteral("PRAGMA application_id = %1").arg(HistorySchema::kApplicationId)));
            QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = 7")));
        }
        const auto store = HistoryStore::open(historyPath(dir));
        QVERIFY(!store);
        const QString error = store.error();
        QVERIFY2(error.contains(QLatin1String("schema version 7")), qPrintable(error));
        QVERIFY2(
            error.contains(QStringLiteral("knows up to %1").arg(HistorySchema::latestVersion())),
            qPrintable(error));
    }

    void opensAnEmptyFile()
    {
        // A zero-byte file, as `touch` leaves it, and a SQLite file without tables: version 0.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString touched = dir.filePath(QStringLiteral("touched.sqlite"));
        QFile file(touched);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        auto store = openStore(touched);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), HistorySchema::latestVersion());
        QVERIFY(store->ledger().recordStart(newRun(QStringLiteral("1"))));

        const QString blank = dir.filePath(QStringLiteral("blank.sqlite"));
        {
            RawDatabase raw(blank);
            QVERIFY(raw.exec(QStringLiteral("PRAGMA user_version = 0")));
        }
        auto other = openStore(blank);
        QVERIFY(other);
        QCOMPARE(other->schemaVersion(), HistorySchema::latestVersion());
    }

    void opensAFrozenVersion1File()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = historyPath(dir);
        {
            RawDatabase raw(path);
            QVERIFY(raw.isOpen());
            QVERIFY(raw.exec(QStringLiteral("BEGIN")));
            for (const char* statement : kFrozenVersion1)
                QVERIFY(raw.exec(QString::fromUtf8(statement)));
            QVERIFY(raw.exec(QStringLiteral("COMMIT")));
            QVERIFY(raw.exec(
                QStringLiteral(
                    "INSERT INTO runs (change_seq, server_instance, server_pid, host_name, "
                    "transport, client_name, language, code, limits, stdout_text, exit_code, "
                    "duration_ms, status, started_at, ended_at) VALUES (?, 'i', 7, 'h', 'stdio', "
                    "'old client', 'python', ?, ?, ?, 0, 5, 'ok', ?, ?)"),
                {1, QStringLiteral("print('ünïcode')"), QStringLiteral("{\"memory\":\"256m\"}"),
                 QStringLiteral("ünïcode\n"), 1600000000000LL, 1600000000005LL}));
            QVERIFY(raw.exec(
                QStringLiteral("INSERT INTO runs (change_seq, server_pid, host_name, code, "
                               "status, started_at) VALUES (2, 8, 'h', 'still going', "
                               "'running', 1600000001000)")));
            QVERIFY(raw.exec(QStringLiteral("UPDATE counters SET change_seq = 2")));
        }
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->schemaVersion(), HistorySchema::latestVersion());
        const auto first = store->queries().get(1);
        QVERIFY(first);
        QCOMPARE(first->code, QStringLiteral("print('ünïcode')"));
        QCOMPARE(first->stdoutText, QStringLiteral("ünïcode\n"));
        QCOMPARE(first->limits.value(QStringLiteral("memory")).toString(), QStringLiteral("256m"));
        QCOMPARE(first->status, RunStatus::Ok);
        QCOMPARE(first->exitCode, std::optional<int>(0));
        QCOMPARE(first->startedAt.toMSecsSinceEpoch(), 1600000000000LL);
        QCOMPARE(first->endedAt.toMSecsSinceEpoch(), 1600000000005LL);
        QCOMPARE(first->clientName, QStringLiteral("old client"));
        const auto second = store->queries().get(2);
        QVERIFY(second);
        QCOMPARE(second->status, RunStatus::Running);
        QVERIFY(!second->exitCode);
        QVERIFY(!second->endedAt.isValid());
        QCOMPARE(
            *store->ledger().markInterrupted(QStringLiteral("h"), [](qint64) { return false; }), 1);
        const auto third = store->ledger().recordStart(newRun(QStringLiteral("new")));
        QCOMPARE(*third, 3);
        QCOMPARE(store->queries().get(3)->changeSeq, 4); // after the interruption's 3

        // Version 2: the old runs have no files; new ones keep theirs, and lose them with the run.
        QVERIFY(first->filesKey.isEmpty());
        QVERIFY(first->files.isEmpty());
        QCOMPARE(first->outputFileCount, 0);
        const QString key = QStringLiteral("0f6e5a3c-1b2d-4e5f-8a9b-0c1d2e3f4a5b");
        const auto withFiles = store->ledger().recordStart(runWithFiles(key));
        QVERIFY(withFiles);
        QVERIFY(store->ledger().recordEnd(*withFiles, endWithFiles(key)));
        QCOMPARE(store->queries().get(*withFiles)->files.size(), 3);
        QCOMPARE(store->queries().get(*withFiles)->outputFileCount, 1);
        QVERIFY(store->ledger().remove({*withFiles}));
        RawDatabase raw(path);
        QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM run_files")).toInt(), 0);

        // Version 3: the old runs were in no session.
        QVERIFY(first->sessionName.isEmpty());
        QVERIFY(first->sessionKey.isEmpty());
        QCOMPARE(first->cellNumber, 0);
        QVERIFY(store->queries().sessions()->isEmpty());

        // Version 4: the old run that was still going can be asked to stop no more.
        QVERIFY(!store->stopRequests().request(2));
        QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM stop_requests")).toInt(), 0);

        // Version 5: the old runs made no connection through a proxy.
        QVERIFY(store->queries().get(first->id)->connections.isEmpty());
        QCOMPARE(raw.value(QStringLiteral("SELECT count(*) FROM run_connections")).toInt(), 0);

        // Version 6: none of their connections went unlisted.
        QCOMPARE(store->queries().get(first->id)->connectionsNotListed, 0);
        QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), 6);
    }

    void appendedMigrationUpgradesAndKeepsRows()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = historyPath(dir);
        QList<qint64> ids;
        {
            auto store = openStore(path);
            QVERIFY(store);
            for (int i = 0; i < 3; ++i) {
                const auto id =
                    store->ledger().recordStart(newRun(QStringLiteral("run %1").arg(i)));
                QVERIFY(id);
                QVERIFY(
                    store->ledger().recordEnd(*id, ended(RunStatus::Ok, QStringLiteral("out"))));
                ids += *id;
            }
        }

        QList<HistoryMigration> withNext = HistorySchema::migrations();
        HistoryMigration next;
        next.version = HistorySchema::latestVersion() + 1;
        next.description = QStringLiteral("a note on runs (test only)");
        next.statements = {
            QStringLiteral("ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT 'none'"),
            QStringLiteral("CREATE INDEX runs_note ON runs (note)"),
        };
        withNext += next;
        {
            auto opened = HistoryStore::open(path, withNext);
            QVERIFY2(opened, qPrintable(opened.error()));
            const std::unique_ptr<HistoryStore> store = *std::move(opened);
            QCOMPARE(store->schemaVersion(), next.version);
            for (int i = 0; i < 3; ++i) {
                const auto run = store->queries().get(ids.at(i));
                QVERIFY(run);
                QCOMPARE(run->code, QStringLiteral("run %1").arg(i));
                QCOMPARE(run->stdoutText, QStringLiteral("out"));
                QCOMPARE(run->status, RunStatus::Ok);
            }
            QVERIFY(store->ledger().recordStart(newRun(QStringLiteral("after the upgrade"))));
        }
        {
            RawDatabase raw(path);
            QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(), next.version);
            QCOMPARE(raw.value(QStringLiteral("SELECT note FROM runs WHERE id = ?"), {ids.at(0)})
                         .toString(),
                     QStringLiteral("none"));
        }
        // This build, without the new step, must now refuse the file rather than guess.
        const auto refused = HistoryStore::open(path);
        QVERIFY(!refused);
        QVERIFY2(refused.error().contains(QLatin1String("newer version")),
                 qPrintable(refused.error()));
        QVERIFY(HistoryStore::open(path, withNext));
    }

    void failedMigrationChangesNothing()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = historyPath(dir);
        {
            auto store = openStore(path);
            QVERIFY(store);
            QVERIFY(store->ledger().recordStart(newRun(QStringLiteral("kept"))));
        }
        QList<HistoryMigration> broken = HistorySchema::migrations();
        HistoryMigration next;
        next.version = HistorySchema::latestVersion() + 1;
        next.description = QStringLiteral("broken (test only)");
        next.statements = {QStringLiteral("ALTER TABLE runs ADD COLUMN half_done TEXT"),
                           QStringLiteral("THIS IS NOT SQL")};
        broken += next;
        const auto failed = HistoryStore::open(path, broken);
        QVERIFY(!failed);
        const QString& error = failed.error();
        QVERIFY2(error.contains(QStringLiteral("version %1").arg(next.version)), qPrintable(error));
        QVERIFY2(error.contains(
                     QStringLiteral("left at version %1").arg(HistorySchema::latestVersion())),
                 qPrintable(error));
        {
            RawDatabase raw(path);
            QCOMPARE(raw.value(QStringLiteral("PRAGMA user_version")).toInt(),
                     HistorySchema::latestVersion());
            QVERIFY(!raw.exec(QStringLiteral("SELECT half_done FROM runs")));
        }
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->queries().get(1)->code, QStringLiteral("kept"));

        // A list of steps with a gap is a bug, refused before the file is touched.
        QList<HistoryMigration> gap = HistorySchema::migrations();
        next.version += 1;
        gap += next;
        const auto refused = HistoryStore::open(path, gap);
        QVERIFY(!refused);
        QVERIFY2(refused.error().contains(QLatin1String("a bug")), qPrintable(refused.error()));
    }

    // A running run's output waits briefly for another writer and gives up, then the usual
    // wait applies again to the writes that matter.
    void liveOutputDoesNotWaitLongForTheLock()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = historyPath(dir);
        auto store = openStore(path);
        QVERIFY(store);
        const auto id = store->ledger().recordStart(newRun(QStringLiteral("print(1)")));
        QVERIFY(id);
        RawDatabase locker(path);
        QVERIFY(locker.exec(QStringLiteral("BEGIN IMMEDIATE")));
        QElapsedTimer timer;
        timer.start();
        QVERIFY(!store->ledger().recordOutput(*id, QStringLiteral("1\n"), QString()));
        QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY(locker.exec(QStringLiteral("ROLLBACK")));
        // The end still waits up to its 5 s: another process holding the lock for 300 ms
        // does not make it fail.
        std::atomic<bool> locked = false;
        std::unique_ptr<QThread> holder(QThread::create([&] {
            RawDatabase other(path);
            if (!other.exec(QStringLiteral("BEGIN IMMEDIATE")))
                return;
            locked = true;
            QThread::msleep(300);
            other.exec(QStringLiteral("ROLLBACK"));
        }));
        holder->start();
        QTRY_VERIFY(locked);
        const Expected<void> recorded =
            store->ledger().recordEnd(*id, ended(RunStatus::Ok, QStringLiteral("1\n")));
        QVERIFY2(recorded, qPrintable(recorded.error()));
        QVERIFY(holder->wait(5000));
        QVERIFY(
            store->ledger().recordOutput(*store->ledger().recordStart(newRun(QStringLiteral("x"))),
                                         QStringLiteral("ok"), QString()));
    }

    void busyDatabaseFailsCleanly()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = historyPath(dir);
        auto store = openStore(path);
        QVERIFY(store);
        const auto id = store->ledger().recordStart(newRun(QStringLiteral("before the lock")));
        QVERIFY(id);
        QVERIFY(store->setBusyTimeout(std::chrono::milliseconds(100)));

        RawDatabase locker(path);
        QVERIFY(locker.exec(QStringLiteral("BEGIN IMMEDIATE")));
        QElapsedTimer timer;
        timer.start();
        const Expected<qint64> locked =
            store->ledger().recordStart(newRun(QStringLiteral("while locked")));
        QVERIFY(!locked);
        QVERIFY(timer.elapsed() >= 90);
        QVERIFY(timer.elapsed() < 5000);
        QVERIFY2(locked.error().contains(QLatin1String("locked")), qPrintable(locked.error()));
        QVERIFY(!store->ledger().recordEnd(*id, ended(RunStatus::Ok)));
        QVERIFY(!store->ledger().markInterrupted(kHost, [](qint64) { return false; }));
        // WAL: reading goes on while another process writes.
        QCOMPARE(*store->queries().count({}), 1);
        QCOMPARE(store->queries().get(*id)->code, QStringLiteral("before the lock"));
        QVERIFY(locker.exec(QStringLiteral("ROLLBACK")));

        QVERIFY(store->ledger().recordEnd(*id, ended(RunStatus::Ok)));
        QVERIFY(store->ledger().recordStart(newRun(QStringLiteral("after the lock"))));
        QCOMPARE(*store->queries().count({}), 2);
        RawDatabase checker(path);
        QCOMPARE(checker.value(QStringLiteral("PRAGMA integrity_check")).toString(),
                 QStringLiteral("ok"));
    }

    void refusesOtherThreads()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        std::optional<qint64> id = 0;
        qint64 count = 0;
        QString error;
        QThread* thread = QThread::create([&] {
            const Expected<qint64> started =
                store->ledger().recordStart(newRun(QStringLiteral("x")));
            id = started ? std::optional<qint64>(*started) : std::nullopt;
            const Expected<qint64> counted = store->queries().count({});
            count = counted.valueOr(-1);
            error = counted.error();
        });
        thread->start();
        QVERIFY(thread->wait(10000));
        delete thread;
        QVERIFY(!id);
        QCOMPARE(count, -1);
        QVERIFY(error.contains(QLatin1String("thread")));
        QCOMPARE(*store->queries().count({}), 0);
    }

    void vacuumReleasesSpace()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = historyPath(dir);
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(*store->retention().vacuumIfWorthIt(), 0); // nothing to release
        const QString output(qsizetype(256) * 1024, u'v');
        QList<qint64> ids;
        for (int i = 0; i < 48; ++i) {
            const auto id = store->ledger().recordStart(newRun(QString::number(i)));
            QVERIFY(id);
            QVERIFY(store->ledger().recordEnd(*id, ended(RunStatus::Ok, output)));
            ids += *id;
        }
        QVERIFY(store->ledger().remove(ids));
        RawDatabase raw(path);
        const qint64 freeBefore = raw.value(QStringLiteral("PRAGMA freelist_count")).toLongLong();
        QVERIFY(freeBefore > 1000);
        const int released = *store->retention().vacuumIfWorthIt();
        QVERIFY2(released >= freeBefore - 10, qPrintable(QString::number(released)));
        QVERIFY(raw.value(QStringLiteral("PRAGMA freelist_count")).toLongLong() < 10);
        QCOMPARE(raw.value(QStringLiteral("PRAGMA integrity_check")).toString(),
                 QStringLiteral("ok"));
        QVERIFY(store->ledger().recordStart(newRun(QStringLiteral("after"))));
    }

    void latency_data()
    {
        QTest::addColumn<int>("outputChars");
        QTest::newRow("small output") << 100;
        QTest::newRow("1 MiB output") << 1024 * 1024;
    }

    // Not a benchmark (the bound is loose): it prints what one run costs its server.
    void latency()
    {
        QFETCH(int, outputChars);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto store = openStore(historyPath(dir));
        QVERIFY(store);
        const QString output(outputChars, u'o');
        QList<qint64> times;
        for (int i = 0; i < 21; ++i) {
            QElapsedTimer timer;
            timer.start();
            const auto id = store->ledger().recordStart(newRun(QStringLiteral("print('o' * n)")));
            QVERIFY(id);
            QVERIFY(store->ledger().recordEnd(*id, ended(RunStatus::Ok, output)));
            times += timer.nsecsElapsed() / 1000;
        }
        std::sort(times.begin(), times.end());
        qInfo("recordStart + recordEnd, %d chars of stdout: median %lld us (min %lld, max %lld)",
              outputChars, times.at(10), times.constFirst(), times.constLast());
        QVERIFY(times.at(10) < 2'000'000);
    }
};

QTEST_GUILESS_MAIN(tst_HistoryStore)
#include "tst_HistoryStore.moc"
