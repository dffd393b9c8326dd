// The run history as the real code-sandbox-mcp writes it against a real container engine
// (CSM_TEST_ENGINE=podman|docker): several servers at once in one database, a server killed
// mid-call, --no-history, and the `history` command reading what they wrote.
#include "CallResult.h"
#include "history/HistoryStore.h"
#include "McpStdioClient.h"
#include "ServerCli.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <memory>
#include <optional>

using namespace callresult;
using csm::HistoryStore;
using csm::RunRecord;
using csm::RunStatus;

namespace {

// RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks.
QList<QStringList> parseCsv(const QString& text)
{
    QList<QStringList> rows;
    QStringList row;
    QString field;
    bool quoted = false;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (quoted) {
            if (c == u'"' && i + 1 < text.size() && text.at(i + 1) == u'"') {
                field += u'"';
                ++i;
            } else if (c == u'"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == u'"') {
            quoted = true;
        } else if (c == u',') {
            row << field;
            field.clear();
        } else if (c == u'\r') {
            continue;
        } else if (c == u'\n') {
            row << field;
            rows << row;
            row.clear();
            field.clear();
        } else {
            field += c;
        }
    }
    if (!field.isEmpty() || !row.isEmpty())
        rows << (row << field);
    return rows;
}

} // namespace

class TestHistoryRecording final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<McpStdioClient> startServer(const QString& dataDir, const QString& clientName,
                                                const QStringList& extra = {},
                                                const QProcessEnvironment& variables = {})
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
        env.remove(QStringLiteral("CODE_SANDBOX_DATA_DIR"));
        env.insert(variables);
        auto client = std::make_unique<McpStdioClient>();
        if (!client->start(QStringList{QStringLiteral("--pool"), QStringLiteral("0"),
                                       QStringLiteral("--data-dir"), dataDir} +
                               extra,
                           env))
            return nullptr;
        const QJsonObject init = client->initialize(
            QStringLiteral("2025-11-25"),
            {{QStringLiteral("name"), clientName},
             {QStringLiteral("version"), QString(clientName + QStringLiteral("-version"))}});
        if (init.isEmpty())
            return nullptr;
        return client;
    }

    // The history in `dir`, opened as another process would.
    static std::unique_ptr<HistoryStore> openHistory(const QTemporaryDir& dir)
    {
        auto history = HistoryStore::open(dir.filePath(QStringLiteral("history.sqlite")));
        if (!history) {
            qWarning().noquote() << history.error();
            return nullptr;
        }
        return *std::move(history);
    }

    // An ended run, written as another process would write it.
    static bool recordEndedRun(HistoryStore& history, const QString& code,
                               const QString& stdoutText = {})
    {
        RunRecord run;
        run.code = code;
        const auto id = history.ledger().recordStart(run);
        RunRecord end;
        end.status = RunStatus::Ok;
        end.stdoutText = stdoutText;
        return id && history.ledger().recordEnd(*id, end);
    }

    HistoryStore& store()
    {
        if (!m_store) {
            auto opened = HistoryStore::open(m_dir.filePath(QStringLiteral("history.sqlite")));
            if (!opened)
                qFatal("%s", qPrintable(opened.error()));
            m_store = *std::move(opened);
        }
        return *m_store;
    }

    // The one run whose code contains `marker`.
    std::optional<RunRecord> run(const QString& marker)
    {
        csm::HistoryQuery query;
        query.limit = 0;
        query.text = marker;
        const QList<RunRecord> runs = *store().queries().list(query);
        for (const RunRecord& candidate : runs) {
            if (candidate.code.contains(marker))
                return candidate;
        }
        return std::nullopt;
    }

    bool waitForStatus(const QString& marker, RunStatus status, int timeoutMs)
    {
        QDeadlineTimer deadline(timeoutMs);
        while (!deadline.hasExpired()) {
            const auto found = run(marker);
            if (found && found->status == status)
                return true;
            QTest::qWait(100);
        }
        return false;
    }

    QTemporaryDir m_dir;
    std::unique_ptr<HistoryStore> m_store;
    qint64 m_okRunId = 0;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")),
                 "the python sandbox image must be built (containers/build-images)");
        QVERIFY(m_dir.isValid());
    }

    void concurrentServersRecordEveryCall()
    {
        const QStringList names{QStringLiteral("client-a"), QStringLiteral("client-b")};
        std::vector<std::unique_ptr<McpStdioClient>> servers;
        for (const QString& name : names) {
            servers.push_back(startServer(m_dir.path(), name));
            QVERIFY(servers.back());
        }

        // Every call of both servers at once.
        struct Calls
        {
            int ok = 0;
            int error = 0;
            int timeout = 0;
            int cancelled = 0;
        };
        std::vector<Calls> calls(servers.size());
        const auto call = [](McpStdioClient& client, const QString& program, double timeout = 0) {
            return client.sendRequest(QStringLiteral("tools/call"),
                                      {{QStringLiteral("name"), QStringLiteral("run_python_code")},
                                       {QStringLiteral("arguments"), code(program, timeout)}});
        };
        for (size_t i = 0; i < servers.size(); ++i) {
            McpStdioClient& client = *servers[i];
            const QString n = names.at(i);
            calls[i].ok = call(client, QStringLiteral("print('ok %1') # mark-ok-%1").arg(n));
            calls[i].error = call(client, QStringLiteral("import sys # mark-error-%1\n"
                                                         "print('failing')\nsys.exit(3)\n")
                                              .arg(n));
            calls[i].timeout =
                call(client,
                     QStringLiteral("import time # mark-timeout-%1\ntime.sleep(60)\n").arg(n), 1);
            calls[i].cancelled = call(
                client, QStringLiteral("import time # mark-cancel-%1\ntime.sleep(120)\n").arg(n));
        }
        // The cancelled calls are recorded as running first; then the client gives up on them.
        for (const QString& n : names)
            QVERIFY(waitForStatus(QStringLiteral("mark-cancel-") + n, RunStatus::Running, 30'000));
        for (size_t i = 0; i < servers.size(); ++i) {
            servers[i]->sendNotification(QStringLiteral("notifications/cancelled"),
                                         {{QStringLiteral("requestId"), calls[i].cancelled}});
        }
        for (size_t i = 0; i < servers.size(); ++i) {
            for (const int id : {calls[i].ok, calls[i].error, calls[i].timeout})
                QVERIFY2(servers[i]->waitForResponse(id, 90'000), qPrintable(names.at(i)));
        }
        for (const QString& n : names) {
            QVERIFY2(
                waitForStatus(QStringLiteral("mark-cancel-") + n, RunStatus::Cancelled, 30'000),
                qPrintable(n));
        }

        QSet<QString> instances;
        for (size_t i = 0; i < servers.size(); ++i) {
            const QString n = names.at(i);
            const struct
            {
                const char* kind;
                RunStatus status;
                std::optional<int> exitCode;
            } expected[] = {
                {"ok", RunStatus::Ok, 0},
                {"error", RunStatus::Error, 3},
                {"timeout", RunStatus::Timeout, std::nullopt},
                {"cancel", RunStatus::Cancelled, std::nullopt},
            };
            for (const auto& e : expected) {
                const QString marker = QStringLiteral("mark-%1-%2").arg(QLatin1String(e.kind), n);
                const auto found = run(marker);
                QVERIFY2(found, qPrintable(marker));
                QCOMPARE(found->status, e.status);
                if (e.exitCode)
                    QCOMPARE(found->exitCode.value_or(-1), *e.exitCode);
                QCOMPARE(found->clientName, n);
                QCOMPARE(found->clientVersion, n + QStringLiteral("-version"));
                QCOMPARE(found->transport, QStringLiteral("stdio"));
                QCOMPARE(found->sessionId, QString());
                QCOMPARE(found->tool, QStringLiteral("run_python_code"));
                QCOMPARE(found->language, QStringLiteral("python"));
                QCOMPARE(found->serverPid, servers[i]->pid());
                QVERIFY(found->endedAt.isValid());
                QVERIFY(!found->serverInstance.isEmpty());
                instances.insert(found->serverInstance);
                if (e.status == RunStatus::Timeout)
                    QCOMPARE(found->limits.value(QLatin1String("timeout_ms")).toInt(), 1000);
            }
            const auto ok = run(QStringLiteral("mark-ok-") + n);
            QCOMPARE(ok->stdoutText, QStringLiteral("ok %1\n").arg(n));
            // A print in a warm interpreter may take under a millisecond: 0 ms is a fair
            // reading, a negative or absurd one is not.
            QVERIFY2(ok->durationMs >= 0 && ok->durationMs < 30'000,
                     qPrintable(QString::number(ok->durationMs)));
            QVERIFY(ok->endedAt >= ok->startedAt);
            if (i == 0)
                m_okRunId = ok->id;
            QCOMPARE(run(QStringLiteral("mark-error-") + n)->stdoutText,
                     QStringLiteral("failing\n"));
        }
        QCOMPARE(instances.size(), 2); // one per server process
        QCOMPARE(*store().queries().count({}), 8);

        for (auto& server : servers) {
            server->closeStdin();
            QVERIFY(server->waitForExit(30'000));
            QCOMPARE(server->process().exitCode(), 0);
        }
        // Nothing was left running by an orderly exit.
        csm::HistoryQuery running;
        running.statuses = {RunStatus::Running};
        QCOMPARE(*store().queries().count(running), 0);
    }

    void killedServerLeavesAnInterruptedRun()
    {
        auto doomed = startServer(m_dir.path(), QStringLiteral("client-killed"));
        QVERIFY(doomed);
        const qint64 doomedPid = doomed->pid();
        doomed->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"),
              code(QStringLiteral("import time # mark-killed\ntime.sleep(300)\n"))}});
        QVERIFY(waitForStatus(QStringLiteral("mark-killed"), RunStatus::Running, 30'000));
        // Mid-call: its container is up.
        QDeadlineTimer deadline(30'000);
        while (TestEngine::containersWithLabel(pidLabel(doomedPid)).isEmpty() &&
               !deadline.hasExpired())
            QTest::qWait(100);
        QVERIFY(!deadline.hasExpired());

        ::kill(static_cast<pid_t>(doomedPid), SIGKILL);
        QVERIFY(doomed->waitForExit(10'000));
        QCOMPARE(run(QStringLiteral("mark-killed"))->status, RunStatus::Running);

        // The next server to start notices.
        auto next = startServer(m_dir.path(), QStringLiteral("client-next"));
        QVERIFY(next);
        const auto interrupted = run(QStringLiteral("mark-killed"));
        QCOMPARE(interrupted->status, RunStatus::Interrupted);
        QVERIFY(interrupted->endedAt.isValid());
        QCOMPARE(interrupted->serverPid, doomedPid);

        // That server also removes the dead one's container.
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(doomedPid), 60'000),
                 QStringList());
        next->closeStdin();
        QVERIFY(next->waitForExit(30'000));
    }

    void passThroughValuesNeverReachTheFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString name = QStringLiteral("CSM_TEST_HISTORY_SECRET");
        const QByteArray secret =
            "tok-" + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
        qputenv(name.toLatin1().constData(), secret);
        auto server = startServer(dir.path(), QStringLiteral("client-secret"),
                                  {QStringLiteral("--pass-through-env"), name});
        qunsetenv(name.toLatin1().constData());
        QVERIFY(server);
        // The value in the code, in stdout, in stderr and in the exit message.
        const QString program =
            QStringLiteral("# %1\nimport os, sys\nv = os.environ['%2']\nprint(v)\n"
                           "print('err', v, file=sys.stderr)\n")
                .arg(QString::fromLatin1(secret), name);
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"), code(program));
        // Redacted for the client too, by default.
        QCOMPARE(stdoutOf(result), QStringLiteral("[secret:%1]\n").arg(name));
        server->closeStdin();
        QVERIFY(server->waitForExit(30'000));

        auto opened = HistoryStore::open(dir.filePath(QStringLiteral("history.sqlite")));
        QVERIFY2(opened, qPrintable(opened.error()));
        std::unique_ptr<HistoryStore> history = *std::move(opened);
        csm::HistoryQuery query;
        query.limit = 0;
        const QList<RunRecord> runs = *history->queries().list(query);
        QCOMPARE(runs.size(), 1);
        const QString marker = QStringLiteral("[secret:%1]").arg(name);
        QVERIFY2(runs.first().stdoutText == marker + u'\n', qPrintable(runs.first().stdoutText));
        QVERIFY(runs.first().stderrText.contains(marker));
        QVERIFY(runs.first().code.contains(marker));
        history.reset();
        // Nowhere in the database's files, whatever SQLite left in its journal.
        const QStringList files = QDir(dir.path()).entryList(QDir::Files);
        QVERIFY(!files.isEmpty());
        for (const QString& file : files) {
            QFile f(dir.filePath(file));
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains(secret), qPrintable(file));
        }
    }

    // A call's files are kept in a folder of its own, owner only, made by the first file: a call
    // that keeps none leaves nothing behind, and the history names the folder of one that does.
    void onlyCallsThatKeepFilesGetAFolder()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto server = startServer(dir.path(), QStringLiteral("client-files"));
        QVERIFY(server);
        QCOMPARE(stdoutOf(server->callTool(QStringLiteral("run_python_code"),
                                           code(QStringLiteral("print(6)")))),
                 QStringLiteral("6\n"));
        const QString writeOne =
            QStringLiteral("open('/sandbox/out/kept.txt', 'w').write('kept')\nprint(7)");
        QCOMPARE(stdoutOf(server->callTool(QStringLiteral("run_python_code"), code(writeOne))),
                 QStringLiteral("7\n"));
        server->closeStdin();
        QVERIFY(server->waitForExit(30'000));

        const QDir root(dir.filePath(QStringLiteral("run-files")));
        QCOMPARE(QFileInfo(root.path()).permissions() & 0x0077, QFile::Permissions());
        const QStringList folders = root.entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(folders.size(), 1);
        QVERIFY(
            QFileInfo::exists(root.filePath(folders.first() + QStringLiteral("/out/kept.txt"))));
        auto history = openHistory(dir);
        QVERIFY(history);
        const QList<RunRecord> runs = *history->queries().list({});
        QCOMPARE(runs.size(), 2);
        for (const RunRecord& run : runs)
            QCOMPARE(run.outputFileCount, run.stdoutText == QStringLiteral("7\n") ? 1 : 0);
    }

    void noHistoryWritesNothing()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString dataDir = dir.filePath(QStringLiteral("data"));
        auto server =
            startServer(dataDir, QStringLiteral("client-quiet"), {QStringLiteral("--no-history")});
        QVERIFY(server);
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"), code(QStringLiteral("print(5)")));
        QCOMPARE(stdoutOf(result), QStringLiteral("5\n"));
        server->closeStdin();
        QVERIFY(server->waitForExit(30'000));
        QVERIFY(!QFileInfo::exists(dataDir));
    }

    // A call refused before anything runs (an invalid timeout) with 16 MiB of code: the client
    // hears why, and the history keeps the reason and the start of the code, not 16 MiB.
    void aRefusedHugeCallIsRecordedCompactly()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto server = startServer(dir.path(), QStringLiteral("client-huge"));
        QVERIFY(server);
        const QString program = QStringLiteral("# mark-huge\n") + QString(16 * 1024 * 1024, u'x');
        QJsonObject arguments = callresult::code(program);
        arguments.insert(QStringLiteral("timeout_seconds"), -1);
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"), arguments, 120'000);
        QVERIFY(isError(result));
        QVERIFY2(text(result).contains(QLatin1String("timeout_seconds")), qPrintable(text(result)));
        // The server goes on serving.
        QCOMPARE(stdoutOf(server->callTool(QStringLiteral("run_python_code"),
                                           callresult::code(QStringLiteral("print(1)")))),
                 QStringLiteral("1\n"));
        server->closeStdin();
        QVERIFY(server->waitForExit(30'000));

        auto history = openHistory(dir);
        QVERIFY(history);
        csm::HistoryQuery refused;
        refused.text = QStringLiteral("mark-huge");
        const QList<RunRecord> runs = *history->queries().list(refused);
        QCOMPARE(runs.size(), 1);
        const RunRecord& run = runs.constFirst();
        QCOMPARE(run.status, RunStatus::Error);
        QVERIFY2(run.errorMessage.contains(QLatin1String("timeout_seconds")),
                 qPrintable(run.errorMessage));
        QVERIFY2(run.code.size() <= 256 * 1024 + 64, qPrintable(QString::number(run.code.size())));
        QVERIFY(run.code.startsWith(QStringLiteral("# mark-huge\nxxx")));
        QVERIFY2(run.code.endsWith(QStringLiteral("\n[... 15.8 MiB not kept in the history]")),
                 qPrintable(run.code.right(60)));
        history.reset();
        // The whole database: far from the 16 MiB it used to take.
        const qint64 onDisk = QFileInfo(dir.filePath(QStringLiteral("history.sqlite"))).size() +
                              QFileInfo(dir.filePath(QStringLiteral("history.sqlite-wal"))).size();
        QVERIFY2(onDisk < 4 * 1024 * 1024, qPrintable(QString::number(onDisk)));
    }

    // A program printing 5 MiB: the client gets the output cap's worth (1 MiB by default), the
    // history a quarter of that and a note of the rest.
    void bigOutputIsStoredCapped()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto server = startServer(dir.path(), QStringLiteral("client-loud"));
        QVERIFY(server);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            callresult::code(QStringLiteral("import sys # mark-loud\n"
                                            "sys.stdout.write('o' * (5 * 1024 * 1024))\n"
                                            "sys.stderr.write('e' * 1000)\n")),
            120'000);
        QCOMPARE(stdoutOf(result).size(), 1024 * 1024);
        QCOMPARE(structured(result).value(QLatin1String("truncated")).toBool(), true);
        server->closeStdin();
        QVERIFY(server->waitForExit(30'000));

        auto history = openHistory(dir);
        QVERIFY(history);
        const QList<RunRecord> runs = *history->queries().list({});
        QCOMPARE(runs.size(), 1);
        const RunRecord& run = runs.constFirst();
        QCOMPARE(run.status, RunStatus::Ok);
        QCOMPARE(run.stdoutText, QString(256 * 1024, u'o') +
                                     QStringLiteral("\n[... 768.0 KiB not kept in the history]"));
        QCOMPARE(run.stdoutTruncated, true); // the client's output was cut too
        QCOMPARE(run.stderrText, QString(1000, u'e'));
    }

    // --history-max-mb 1 and runs of about 768 KiB each: the database stays about 1 MiB, where
    // these runs would take 18 MiB.
    void theFileStaysWithinTheSizeLimit()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto server = startServer(dir.path(), QStringLiteral("client-budget"),
                                  {QStringLiteral("--history-max-mb"), QStringLiteral("1")});
        QVERIFY(server);
        const QString database = dir.filePath(QStringLiteral("history.sqlite"));
        const QString filler = QStringLiteral("#") + QString(300 * 1024, u'c') + u'\n';
        qint64 largest = 0;
        constexpr int kRuns = 24;
        for (int i = 0; i < kRuns; ++i) {
            const QJsonObject result = server->callTool(
                QStringLiteral("run_python_code"),
                callresult::code(filler + QStringLiteral("import sys\n"
                                                         "sys.stdout.write('o' * 400000)\n"
                                                         "sys.stderr.write('e' * 400000)\n")),
                120'000);
            QCOMPARE(stdoutOf(result).size(), 400000);
            const qint64 onDisk =
                QFileInfo(database).size() + QFileInfo(database + QStringLiteral("-wal")).size();
            largest = std::max(largest, onDisk);
        }
        server->closeStdin();
        QVERIFY(server->waitForExit(30'000));
        qInfo("largest history file + WAL after a run: %lld KiB", largest / 1024);
        // The file itself about the budget, the WAL about SQLite's checkpoint size (4 MiB).
        QVERIFY2(largest < 8 * 1024 * 1024, qPrintable(QString::number(largest)));

        auto history = openHistory(dir);
        QVERIFY(history);
        QVERIFY2(*history->retention().contentBytes() <= 1024 * 1024,
                 qPrintable(QString::number(*history->retention().contentBytes())));
        // The newest runs are the ones kept.
        const QList<RunRecord> kept = *history->queries().list({});
        QVERIFY(!kept.isEmpty() && kept.size() < kRuns);
        // Every run recorded its start and its end (and, as it printed, its output so far).
        QVERIFY2(*history->queries().lastChangeSeq() >= 2 * kRuns,
                 qPrintable(QString::number(*history->queries().lastChangeSeq())));
    }

    // Runs beyond --history-max-runs, written while a server runs, go without a restart.
    void aRunningServerPrunesOnItsTimer()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QProcessEnvironment variables;
        variables.insert(QStringLiteral("CODE_SANDBOX_HISTORY_PRUNE_INTERVAL_MS"),
                         QStringLiteral("300"));
        auto server =
            startServer(dir.path(), QStringLiteral("client-timer"),
                        {QStringLiteral("--history-max-runs"), QStringLiteral("3")}, variables);
        QVERIFY(server);
        auto history = openHistory(dir);
        QVERIFY(history);
        // As other processes would write them; the server itself records nothing.
        for (int i = 0; i < 10; ++i)
            QVERIFY(recordEndedRun(*history, QStringLiteral("other process %1").arg(i)));
        QVERIFY(*history->queries().count({}) > 3);
        QTRY_COMPARE_WITH_TIMEOUT(history->queries().count({}).valueOr(-1), 3, 10'000);
        QCOMPARE(history->queries().list({})->constFirst().code, QStringLiteral("other process 9"));
        server->closeStdin();
        QVERIFY(server->waitForExit(30'000));
    }

    // `history prune` keeps to the size as the servers do: the flag's, else settings.ini's.
    void historyPruneAppliesTheSizeLimit()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString database = dir.filePath(QStringLiteral("history.sqlite"));
        {
            auto history = openHistory(dir);
            QVERIFY(history);
            for (int i = 0; i < 48; ++i) // 12 MiB
                QVERIFY(recordEndedRun(*history, QStringLiteral("run %1").arg(i),
                                       QString(256 * 1024, u'o')));
        }
        const QStringList prune{QStringLiteral("history"), QStringLiteral("prune"),
                                QStringLiteral("--data-dir"), dir.path()};
        // The settings file says 8 MiB.
        {
            QFile settings(dir.filePath(QStringLiteral("settings.ini")));
            QVERIFY(settings.open(QIODevice::WriteOnly));
            settings.write("[server]\nhistory-max-mb=8\n");
        }
        const servercli::Result bySettings = servercli::run(prune);
        QCOMPARE(bySettings.exitCode, 0);
        QVERIFY2(bySettings.out.startsWith("Deleted "), bySettings.out.constData());
        auto history = openHistory(dir);
        QVERIFY(history);
        QVERIFY(*history->retention().contentBytes() <= 8 * 1024 * 1024);
        QVERIFY(*history->retention().contentBytes() > 6 * 1024 * 1024);
        // The flag wins; and the file shrinks, not only its content.
        const servercli::Result byFlag = servercli::run(
            prune + QStringList{QStringLiteral("--history-max-mb"), QStringLiteral("1")});
        QCOMPARE(byFlag.exitCode, 0);
        QVERIFY(*history->retention().contentBytes() <= 1024 * 1024);
        QVERIFY(*history->queries().count({}) < 48);
        QVERIFY(history->queries().get(48)); // the newest stays
        history.reset();
        QVERIFY2(QFileInfo(database).size() < 3 * 1024 * 1024,
                 qPrintable(QString::number(QFileInfo(database).size())));
    }

    void historyCommandReadsTheRuns()
    {
        QVERIFY(m_okRunId > 0);
        const QStringList dataDir{QStringLiteral("--data-dir"), m_dir.path()};
        const qint64 total = *store().queries().count({});
        QVERIFY(total >= 9);

        // list --json: newest first, every run with --limit 0.
        servercli::Result list = servercli::run(
            QStringList{QStringLiteral("history"), QStringLiteral("list"), QStringLiteral("--json"),
                        QStringLiteral("--limit"), QStringLiteral("0")} +
            dataDir);
        QCOMPARE(list.exitCode, 0);
        const QJsonArray listed = QJsonDocument::fromJson(list.out).array();
        QCOMPARE(listed.size(), total);
        QVERIFY(listed.at(0).toObject().value(QLatin1String("id")).toInteger() >
                listed.at(1).toObject().value(QLatin1String("id")).toInteger());
        bool sawOk = false;
        for (const QJsonValue& value : listed)
            sawOk |= value.toObject().value(QLatin1String("id")).toInteger() == m_okRunId;
        QVERIFY(sawOk);

        // The readable table: a header and one line per run.
        list = servercli::run(QStringList{QStringLiteral("history"), QStringLiteral("list")} +
                              dataDir);
        QCOMPARE(list.exitCode, 0);
        QVERIFY(list.out.startsWith("ID"));
        QVERIFY(list.out.contains("client-a"));

        // show ID --json: every field.
        const servercli::Result show =
            servercli::run(QStringList{QStringLiteral("history"), QStringLiteral("show"),
                                       QString::number(m_okRunId), QStringLiteral("--json")} +
                           dataDir);
        QCOMPARE(show.exitCode, 0);
        const QJsonObject shown = QJsonDocument::fromJson(show.out).object();
        QCOMPARE(shown.value(QLatin1String("id")).toInteger(), m_okRunId);
        QCOMPARE(shown.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
        QCOMPARE(shown.value(QLatin1String("client_name")).toString(), QStringLiteral("client-a"));
        QCOMPARE(shown.value(QLatin1String("stdout")).toString(), QStringLiteral("ok client-a\n"));
        QCOMPARE(shown.value(QLatin1String("exit_code")).toInt(-1), 0);
        QCOMPARE(shown.value(QLatin1String("transport")).toString(), QStringLiteral("stdio"));
        QVERIFY(shown.value(QLatin1String("limits"))
                    .toObject()
                    .contains(QLatin1String("memory_bytes")));

        // export --format csv: a header and every run, multi-line code intact.
        const servercli::Result csv =
            servercli::run(QStringList{QStringLiteral("history"), QStringLiteral("export"),
                                       QStringLiteral("--format"), QStringLiteral("csv")} +
                           dataDir);
        QCOMPARE(csv.exitCode, 0);
        const QList<QStringList> rows = parseCsv(QString::fromUtf8(csv.out));
        QCOMPARE(rows.size(), total + 1);
        const QStringList header = rows.constFirst();
        const qsizetype idColumn = header.indexOf(QStringLiteral("id"));
        const qsizetype codeColumn = header.indexOf(QStringLiteral("code"));
        const qsizetype statusColumn = header.indexOf(QStringLiteral("status"));
        QVERIFY(idColumn >= 0 && codeColumn >= 0 && statusColumn >= 0);
        const auto errorRun = run(QStringLiteral("mark-error-client-b"));
        bool sawError = false;
        for (const QStringList& row : rows.mid(1)) {
            QCOMPARE(row.size(), header.size());
            if (row.at(idColumn).toLongLong() == errorRun->id) {
                sawError = true;
                QCOMPARE(row.at(codeColumn), errorRun->code);
                QCOMPARE(row.at(statusColumn), QStringLiteral("error"));
            }
        }
        QVERIFY(sawError);

        // Errors: an unknown run, an unknown command.
        QCOMPARE(servercli::run(QStringList{QStringLiteral("history"), QStringLiteral("show"),
                                            QStringLiteral("999999")} +
                                dataDir)
                     .exitCode,
                 1);
        QCOMPARE(servercli::run({QStringLiteral("history"), QStringLiteral("frobnicate")}).exitCode,
                 2);
    }
};

QTEST_GUILESS_MAIN(TestHistoryRecording)
#include "tst_HistoryRecording.moc"
