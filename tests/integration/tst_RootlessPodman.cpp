// Rootless Podman as a normal account runs it (CSM_TEST_ENGINE=podman-rootless, the account of
// scripts/setup-rootless-user), where this machine's cgroup v1 makes the engine accept every
// resource limit and enforce none: the limits cannot silently vanish (the run is refused with
// the cause and the fixes, or runs under --allow-unlimited saying so, and is recorded so; a
// session's cells too, cold or from the pool, whose sessions work for the account), the
// engine's own warning is shown as one, rootless networking without /dev/net/tun is named as
// the cause, doctor finds all of it, and the images were built without root.
#include "CallResult.h"
#include "history/HistoryStore.h"
#include "McpStdioClient.h"
#include "ServerExit.h"
#include "TestEngine.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace callresult;
using csm::RunRecord;
using csm::RunStatus;

namespace {

struct Outcome
{
    int exitCode = -1;
    QByteArray out;
};

// code-sandbox-mcp ARGS as the rootless account, to its end.
Outcome runAsAccount(const QStringList& arguments, const QProcessEnvironment& environment)
{
    QProcess process;
    TestEngine::prepare(process, TestEngine::serverBinary(), arguments, environment);
    process.start();
    process.closeWriteChannel();
    Outcome outcome;
    if (!process.waitForFinished(90'000)) {
        process.kill();
        process.waitForFinished();
        return outcome;
    }
    outcome.exitCode = process.exitCode();
    outcome.out = process.readAllStandardOutput() + process.readAllStandardError();
    return outcome;
}

} // namespace

class TestRootlessPodman final : public QObject
{
    Q_OBJECT

private:
    static std::unique_ptr<McpStdioClient> startServer(const QStringList& arguments)
    {
        return McpStdioClient::startOnTestEngine(QStringList{QStringLiteral("--verbose")} +
                                                 arguments);
    }

    // The history of a server that has exited (its file belongs to the account; root reads it).
    static std::optional<RunRecord> lastRun(const QString& dataDir)
    {
        auto store = csm::HistoryStore::open(dataDir + QStringLiteral("/history.sqlite"));
        if (!store) {
            qWarning("%s", qPrintable(store.error()));
            return std::nullopt;
        }
        const QList<RunRecord> runs = *(*store)->queries().list({});
        if (runs.isEmpty())
            return std::nullopt;
        return runs.constFirst();
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!TestEngine::isRootless())
            QSKIP("rootless Podman only: CSM_TEST_ENGINE=podman-rootless");
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")),
                 "the rootless account needs its images: scripts/setup-rootless-user "
                 "--build-images");
    }

    void imagesWereBuiltWithoutRoot()
    {
        // scripts/setup-rootless-user ran containers/build-images as the account itself.
        const QByteArray label = TestEngine::run(
            {QStringLiteral("image"), QStringLiteral("inspect"), QStringLiteral("--format"),
             QStringLiteral("{{index .Labels \"code-sandbox.builder\"}}"),
             TestEngine::localImage(QStringLiteral("code-sandbox-python:latest"))});
        QCOMPARE(label.trimmed(), QByteArray("mmdebstrap"));
        const QJsonObject result = [this] {
            auto server = startServer({QStringLiteral("--allow-unlimited"),
                                       QStringLiteral("--network"), QStringLiteral("none")});
            return server ? server->callTool(
                                QStringLiteral("run_python_code"),
                                code(QStringLiteral("import pandas\nprint(pandas.__version__)")))
                          : QJsonObject();
        }();
        QVERIFY2(!isError(result), describe(result).constData());
        QCOMPARE(stdoutOf(result), QStringLiteral("1.5.3\n"));
    }

    void limitsTheEngineIgnoresStopTheRun_data()
    {
        QTest::addColumn<QString>("pool");
        QTest::newRow("cold") << QStringLiteral("0");
        QTest::newRow("pooled") << QStringLiteral("1");
    }

    void limitsTheEngineIgnoresStopTheRun()
    {
        QFETCH(QString, pool);
        if (!TestEngine::ignoresLimits())
            QSKIP("on cgroup v2 rootless Podman enforces the limits it is given");
        auto server = startServer(
            {QStringLiteral("--pool"), pool, QStringLiteral("--network"), QStringLiteral("none")});
        QVERIFY(server);
        if (pool != QLatin1String("0"))
            QVERIFY2(server->waitForPooledReady(2), qPrintable(server->standardError()));
        // The program would allocate past the memory limit: it must never run.
        const QJsonObject refused = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("x = bytearray(700 * 1024 * 1024)\nprint('ran')")));
        QVERIFY(isError(refused));
        const QString message = text(refused);
        QVERIFY2(!message.contains(QLatin1String("ran")), qPrintable(message));
        for (const char* part :
             {"The program was not run", "does not enforce", "memory, pids, cpus", "cgroup v2",
              "--allow-unlimited", "Resource limits are not supported"}) {
            QVERIFY2(message.contains(QLatin1String(part)), qPrintable(message));
        }
        const QString dataDir =
            server->process().processEnvironment().value(QStringLiteral("CODE_SANDBOX_DATA_DIR"));
        expectCleanExit(*server);
        const auto run = lastRun(dataDir);
        QVERIFY(run);
        QCOMPARE(run->status, RunStatus::EngineError);
        QVERIFY(run->errorMessage.contains(QLatin1String("does not enforce")));
    }

    void sessionsKeepToTheLimitsToo()
    {
        if (!TestEngine::ignoresLimits())
            QSKIP("on cgroup v2 rootless Podman enforces the limits it is given");
        const auto cell = [](McpStdioClient& server, const QString& session, const QString& code) {
            return server.callTool(
                QStringLiteral("run_python_code"),
                {{QStringLiteral("code"), code}, {QStringLiteral("session"), session}});
        };
        // Where a cell runs: a pooled container has the launcher's socket folder mounted.
        // A server's first session of an image starts its own container and has the pool keep
        // one for the next: ready once the pool's two one-shot containers and it are.
        // Given three minutes: rootless Podman's three starts, one of them with the imports,
        // took more than one beside three other suites' containers.
        const auto sessionContainerReady = [](McpStdioClient& server) {
            return server.waitForPooledReady(3, 180'000);
        };
        const QString probe =
            QStringLiteral("import os\nprint(os.path.isdir('/.code-sandbox/io'))");
        {
            // The first session starts its own container, the next takes the pool's: neither
            // runs a cell without the limits.
            auto server = startServer({QStringLiteral("--pool"), QStringLiteral("1"),
                                       QStringLiteral("--network"), QStringLiteral("none")});
            QVERIFY(server);
            for (const QString& name : {QStringLiteral("first"), QStringLiteral("second")}) {
                const QJsonObject refused = cell(*server, name, probe);
                QVERIFY2(isError(refused) && stdoutOf(refused).isEmpty() &&
                             text(refused).contains(QLatin1String("does not enforce")),
                         describe(refused).constData());
                QVERIFY2(sessionContainerReady(*server), qPrintable(server->standardError()));
            }
            expectCleanExit(*server);
        }
        // Allowed: a pooled session works for the account as for root (its socket, its folder).
        auto server =
            startServer({QStringLiteral("--allow-unlimited"), QStringLiteral("--pool"),
                         QStringLiteral("1"), QStringLiteral("--network"), QStringLiteral("none")});
        QVERIFY(server);
        QCOMPARE(stdoutOf(cell(*server, QStringLiteral("first"), probe)),
                 QStringLiteral("False\n"));
        QVERIFY2(sessionContainerReady(*server), qPrintable(server->standardError()));
        const QJsonObject pooled =
            cell(*server, QStringLiteral("second"), probe + QStringLiteral("\nx = 41"));
        QVERIFY2(!isError(pooled), describe(pooled).constData());
        QCOMPARE(stdoutOf(pooled), QStringLiteral("True\n"));
        QCOMPARE(stdoutOf(cell(*server, QStringLiteral("second"), QStringLiteral("x + 1"))),
                 QStringLiteral("42\n"));
        expectCleanExit(*server);
    }

    void allowUnlimitedRunsAndSaysSo()
    {
        if (!TestEngine::ignoresLimits())
            QSKIP("on cgroup v2 rootless Podman enforces the limits it is given");
        auto server =
            startServer({QStringLiteral("--allow-unlimited"), QStringLiteral("--pool"),
                         QStringLiteral("0"), QStringLiteral("--network"), QStringLiteral("none")});
        QVERIFY(server);
        // 700 MiB under a 512 MiB limit: it runs, because nothing enforces the limit here.
        QJsonObject result;
        for (int i = 0; i < 2; ++i) {
            result = server->callTool(
                QStringLiteral("run_python_code"),
                code(QStringLiteral("x = bytearray(700 * 1024 * 1024)\nprint('ran')")));
            QVERIFY2(!isError(result), describe(result).constData());
        }
        QCOMPARE(stdoutOf(result), QStringLiteral("ran\n"));
        QVERIFY2(text(result).contains(QLatin1String("[note: this sandbox had no memory, pids, "
                                                     "cpus limit")),
                 qPrintable(text(result)));
        // The engine's own warning, shown as one, and logged once however many runs repeat it.
        QVERIFY2(text(result).contains(QLatin1String("[engine warning: Resource limits are not "
                                                     "supported")),
                 qPrintable(text(result)));
        const QString dataDir =
            server->process().processEnvironment().value(QStringLiteral("CODE_SANDBOX_DATA_DIR"));
        expectCleanExit(*server);
        QCOMPARE(int(server->standardError().count(
                     QStringLiteral("engine warning from podman (said once): Resource limits"))),
                 1);
        const auto run = lastRun(dataDir);
        QVERIFY(run);
        QCOMPARE(run->status, RunStatus::Ok);
        QCOMPARE(run->limits.value(QLatin1String("allow_unlimited")).toBool(), true);
        QCOMPARE(
            run->limits.value(QLatin1String("unenforced")).toArray(),
            (QJsonArray{QStringLiteral("memory"), QStringLiteral("pids"), QStringLiteral("cpus")}));
    }

    void networkWithoutTunNamesTheCause()
    {
        // As on a machine without udev: rootless networking cannot open /dev/net/tun.
        const QString tun = QStringLiteral("/dev/net/tun");
        const auto restore = qScopeGuard([&tun] {
            QFile::setPermissions(tun, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup |
                                           QFile::WriteGroup | QFile::ReadOther |
                                           QFile::WriteOther);
            // The failed attempt leaves the account's network namespace half set up.
            TestEngine::run({QStringLiteral("system"), QStringLiteral("migrate")});
        });
        QVERIFY(QFile::setPermissions(tun, QFile::ReadOwner | QFile::WriteOwner));
        auto server =
            startServer(TestEngine::serverArguments() +
                        QStringList{QStringLiteral("--pool"), QStringLiteral("0"),
                                    QStringLiteral("--network"), QStringLiteral("bridge")});
        QVERIFY(server);
        const QJsonObject failed =
            server->callTool(QStringLiteral("run_python_code"), code(QStringLiteral("print(1)")));
        QVERIFY(isError(failed));
        for (const char* part :
             {"could not give the sandbox a network", "/dev/net/tun",
              "sudo chmod 0666 /dev/net/tun", "podman system migrate", "--network none"}) {
            QVERIFY2(text(failed).contains(QLatin1String(part)), qPrintable(text(failed)));
        }
        expectCleanExit(*server);
    }

    void doctorFindsWhatIsWrong()
    {
        QTemporaryDir dataDir;
        QVERIFY(dataDir.isValid());
        TestEngine::handOver(dataDir.path());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), QStringLiteral("podman"));
        env.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), dataDir.path());
        const QStringList doctor{QStringLiteral("doctor"), QStringLiteral("--secrets-file")};
        const Outcome strict = runAsAccount(doctor, env);
        QVERIFY2(strict.out.contains("ok       storage           overlay driver"),
                 strict.out.constData());
        // The account's sandboxes share one mapped uid: doctor says so, and why.
        QVERIFY2(strict.out.contains("every sandbox runs as one host uid"), strict.out.constData());
        if (TestEngine::ignoresLimits()) {
            QCOMPARE(strict.exitCode, 1);
            QVERIFY2(strict.out.contains("problem  sandbox           the engine accepts but does "
                                         "not enforce the memory, pids, cpus limit(s)"),
                     strict.out.constData());
            QVERIFY(strict.out.contains("allow-unlimited=true"));
            QVERIFY(!strict.out.contains("All checks passed"));

            env.insert(QStringLiteral("CODE_SANDBOX_ALLOW_UNLIMITED"), QStringLiteral("1"));
            const Outcome accepted = runAsAccount(doctor, env);
            QVERIFY2(accepted.out.contains("ok       sandbox           a Python program ran in "),
                     accepted.out.constData());
            QVERIFY(accepted.out.contains("limits NOT enforced: memory, pids, cpus"));
        } else {
            QVERIFY2(strict.out.contains("limits enforced"), strict.out.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestRootlessPodman)
#include "tst_RootlessPodman.moc"
