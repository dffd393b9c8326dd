// The warm pool against a real engine (CSM_TEST_ENGINE): pooled calls are as isolated as cold
// ones, a ready container has its modules imported, a call that finds the pool dry takes the
// start under way, the pool grows under load and shrinks when calls quieten, a burst larger than
// the pool is answered in full, and no pooled container outlives its server, however it ends.
#include "CallResult.h"
#include "McpStdioClient.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTest>

#include <csignal>
#include <memory>

using namespace callresult;

class TestWarmPool final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<McpStdioClient> startServer(const QStringList& arguments)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
        auto client = std::make_unique<McpStdioClient>();
        // --verbose: the server says which calls got a warm container.
        if (!client->start(QStringList{QStringLiteral("--verbose")} + arguments, env))
            return nullptr;
        if (client->initialize().isEmpty())
            return nullptr;
        return client;
    }

    // Waits until the server's log says `count` pooled containers have become ready since it
    // started (each one logs a line when it is).
    static bool waitForReady(McpStdioClient& server, int count)
    {
        QDeadlineTimer deadline(60'000);
        while (!deadline.hasExpired()) {
            if (countOf(server.standardError(), QStringLiteral(" ready in all")) >= count)
                return true;
            QTest::qWait(100);
        }
        return false;
    }

    // Docker may still be finishing a removal it started itself (--rm) when the server has
    // exited: a moment's grace, no more.
    static void expectNoContainerLeft(McpStdioClient& server, qint64 pid)
    {
        const QStringList left = TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), 3'000);
        if (!left.isEmpty())
            qWarning("server log:\n%s", qPrintable(server.standardError().right(6000)));
        QCOMPARE(left, QStringList());
    }

    static void expectNoContainerLeftAfterClose(McpStdioClient& server)
    {
        const qint64 pid = server.pid();
        server.closeStdin();
        QVERIFY(server.waitForExit(30'000));
        expectNoContainerLeft(server, pid);
    }

    static int countOf(const QString& text, const QString& needle)
    {
        return int(text.count(needle));
    }

    // The Python containers of the server `pid` that exist now, ready or starting.
    // The server's Python containers: all of them, or only those running (a used one may be
    // listed, exited, until the engine has removed it).
    static int pythonContainersOf(qint64 pid, bool runningOnly = false)
    {
        QStringList arguments{
            QStringLiteral("ps"),       QStringLiteral("-a"),
            QStringLiteral("--filter"), QStringLiteral("label=") + pidLabel(pid),
            QStringLiteral("--filter"), QStringLiteral("label=code-sandbox.language=python"),
            QStringLiteral("--format"), QStringLiteral("{{.Names}}")};
        if (runningOnly)
            arguments << QStringLiteral("--filter") << QStringLiteral("status=running");
        const QByteArray names = TestEngine::run(arguments);
        return int(QString::fromUtf8(names).split(u'\n', Qt::SkipEmptyParts).size());
    }

    // Sends `count` Python calls at once; each must print its own number.
    static bool burstOfCalls(McpStdioClient& server, int count)
    {
        QList<int> ids;
        for (int i = 0; i < count; ++i) {
            ids << server.sendRequest(
                QStringLiteral("tools/call"),
                {{QStringLiteral("name"), QStringLiteral("run_python_code")},
                 {QStringLiteral("arguments"), code(QStringLiteral("print(%1 * 7)").arg(i))}});
        }
        for (int i = 0; i < ids.size(); ++i) {
            const auto response = server.waitForResponse(ids.at(i), 60'000);
            if (!response)
                return false;
            const QJsonObject result = response->value(QLatin1String("result")).toObject();
            if (stdoutOf(result) != QStringLiteral("%1\n").arg(i * 7) ||
                result.value(QLatin1String("isError")).toBool(true))
                return false;
        }
        return true;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")),
                 "the python sandbox image must be built (containers/build-images)");
    }

    void pooledCallsAreIsolatedFromEachOther()
    {
        auto server = startServer({QStringLiteral("--pool"), QStringLiteral("1")});
        QVERIFY(server);
        QVERIFY(waitForReady(*server, 2));
        // The first call leaves everything it can behind: files, a background process, an
        // environment variable for its children.
        const QJsonObject first = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import os, subprocess\n"
                                "open('/tmp/left-behind', 'w').write('x')\n"
                                "open('/sandbox/left-behind', 'w').write('x')\n"
                                "os.environ['LEFT_BEHIND'] = '1'\n"
                                "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
                                "print('planted')\n")));
        QCOMPARE(stdoutOf(first), QStringLiteral("planted\n"));
        QVERIFY(waitForReady(*server, 3)); // the replacement is warm too
        const QJsonObject second = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral(
                "import os\n"
                "files = [p for p in ('/tmp/left-behind', '/sandbox/left-behind') "
                "if os.path.exists(p)]\n"
                "procs = [open(f'/proc/{p}/cmdline').read() for p in os.listdir('/proc') "
                "if p.isdigit()]\n"
                "sleeping = [c for c in procs if c.startswith('sleep')]\n"
                "print(files, sleeping, os.environ.get('LEFT_BEHIND'))\n"
                // The folder the launcher's socket was in is on the host's disk: closed.
                "try:\n"
                "    open('/.code-sandbox/io/fill', 'w').write('x' * 1024)\n"
                "    print('host folder writable')\n"
                "except OSError as error:\n"
                "    print('refused', error.errno)\n")));
        // A remote engine's container has no such folder at all: it stays attached instead.
        QCOMPARE(stdoutOf(second), TestEngine::isRemote()
                                       ? QStringLiteral("[] [] None\nrefused 2\n")
                                       : QStringLiteral("[] [] None\nrefused 13\n"));
        // Both calls really ran in pre-started containers.
        QCOMPARE(countOf(server->standardError(), QStringLiteral("(warm)")), 2);
    }

    void readyContainerHasImportedItsModules()
    {
        // "Ready" is the interpreter's word, after its imports: a call that takes a ready
        // container finds numpy, pandas and pyplot loaded, not interrupted half way.
        auto server = startServer({QStringLiteral("--pool"), QStringLiteral("1")});
        QVERIFY(server);
        QVERIFY(waitForReady(*server, 2));
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import sys\n"
                                "print(sorted(m for m in ('numpy', 'pandas', 'matplotlib.pyplot') "
                                "if m in sys.modules))\n")));
        QCOMPARE(stdoutOf(result), QStringLiteral("['matplotlib.pyplot', 'numpy', 'pandas']\n"));
        QCOMPARE(countOf(server->standardError(), QStringLiteral("(warm)")), 1);
    }

    void callFindingThePoolDryTakesTheStartUnderWay()
    {
        // Two calls at once on a pool of one: the second takes the refill the first one set off
        // (it is ahead of any new start), so neither starts cold.
        auto server = startServer({QStringLiteral("--pool"), QStringLiteral("1")});
        QVERIFY(server);
        QVERIFY(waitForReady(*server, 2));
        QVERIFY(burstOfCalls(*server, 2));
        const QString log = server->standardError();
        QCOMPARE(countOf(log, QStringLiteral("(warm)")), 2);
        QCOMPARE(countOf(log, QStringLiteral("(cold)")), 0);
        QCOMPARE(countOf(log, QStringLiteral("rather than a cold start")), 1);
        expectNoContainerLeftAfterClose(*server);
    }

    void poolGrowsUnderLoadAndShrinksWhenCallsQuieten()
    {
        auto server = startServer({QStringLiteral("--pool"), QStringLiteral("1")});
        QVERIFY(server);
        QVERIFY(waitForReady(*server, 2));
        const qint64 pid = server->pid();
        QVERIFY(burstOfCalls(*server, 4));
        QVERIFY2(server->standardError().contains(QStringLiteral("ready; keeping 2 from now on")),
                 qPrintable(server->standardError().right(4000)));
        // The grown pool fills up: more Python containers wait than the one configured.
        // Running ones only, and for a second on end: the burst's used containers stop and go
        // meanwhile, and one on its way out is not a waiting one.
        QDeadlineTimer filled(60'000);
        int steadyChecks = 0;
        while (steadyChecks < 4 && !filled.hasExpired()) {
            steadyChecks = pythonContainersOf(pid, true) >= 2 ? steadyChecks + 1 : 0;
            QTest::qWait(250);
        }
        QCOMPARE(steadyChecks, 4);
        // Quiet for 30 s: one container goes back.
        static const QRegularExpression shrunk(QStringLiteral("for 30 s; keeping (\\d+)"));
        QDeadlineTimer quiet(60'000);
        QRegularExpressionMatch match;
        while (!(match = shrunk.match(server->standardError())).hasMatch() && !quiet.hasExpired())
            QTest::qWait(500);
        QVERIFY2(match.hasMatch(), qPrintable(server->standardError().right(4000)));
        const int kept = match.captured(1).toInt();
        QDeadlineTimer trimmed(20'000);
        while (pythonContainersOf(pid) > kept && !trimmed.hasExpired())
            QTest::qWait(250);
        QCOMPARE(pythonContainersOf(pid), kept);
        expectNoContainerLeftAfterClose(*server);
    }

    void burstLargerThanThePoolIsAnsweredInFull()
    {
        auto server = startServer({QStringLiteral("--pool"), QStringLiteral("1")});
        QVERIFY(server);
        QVERIFY(waitForReady(*server, 2));
        QVERIFY(burstOfCalls(*server, 6));
        // Each call ran once, warm (ready, or started for it by the pool) or cold.
        const QString log = server->standardError();
        QCOMPARE(countOf(log, QStringLiteral("(warm)")) + countOf(log, QStringLiteral("(cold)")),
                 6);
        expectNoContainerLeftAfterClose(*server);
    }

    void timeoutOfAPooledCallRemovesItsContainer()
    {
        auto server = startServer({QStringLiteral("--pool"), QStringLiteral("1")});
        QVERIFY(server);
        QVERIFY(waitForReady(*server, 2));
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"),
                             {{QStringLiteral("code"),
                               QStringLiteral("print('started', flush=True)\nwhile True: pass")},
                              {QStringLiteral("timeout_seconds"), 1}});
        QCOMPARE(structured(result).value(QLatin1String("timed_out")).toBool(), true);
        QCOMPARE(stdoutOf(result), QStringLiteral("started\n"));
        // The clock started when the code was delivered: about one second, not more.
        const int duration = structured(result).value(QLatin1String("duration_ms")).toInt();
        QVERIFY2(duration >= 900 && duration < 3000, qPrintable(QString::number(duration)));
        QCOMPARE(countOf(server->standardError(), QStringLiteral("(warm)")), 1);
    }

    void poolIsDrainedWhenStdinCloses()
    {
        auto server = startServer({QStringLiteral("--pool"), QStringLiteral("2")});
        QVERIFY(server);
        QVERIFY(waitForReady(*server, 4));
        const qint64 pid = server->pid();
        QCOMPARE(TestEngine::containersWithLabel(pidLabel(pid)).size(), 4);
        server->closeStdin();
        QVERIFY(server->waitForExit(20'000));
        QCOMPARE(server->process().exitCode(), 0);
        expectNoContainerLeft(*server, pid);
    }

    void poolIsDrainedOnSigtermEvenWhileRefilling()
    {
        auto server = startServer({QStringLiteral("--pool"), QStringLiteral("2")});
        QVERIFY(server);
        QVERIFY(waitForReady(*server, 1));
        // Some containers are ready, others are being created right now.
        const qint64 pid = server->pid();
        ::kill(static_cast<pid_t>(pid), SIGTERM);
        QVERIFY(server->waitForExit(20'000));
        expectNoContainerLeft(*server, pid);
    }

    void nextServerRemovesThePoolOfAKilledOne()
    {
        auto killed = startServer({QStringLiteral("--pool"), QStringLiteral("1")});
        QVERIFY(killed);
        QVERIFY(waitForReady(*killed, 2));
        const qint64 pid = killed->pid();
        ::kill(static_cast<pid_t>(pid), SIGKILL);
        QVERIFY(killed->waitForExit(10'000));
        // A waiting launcher ends when the server's connection drops, so the engine may already
        // be removing them; whatever is left, the next server removes.

        auto next = startServer({QStringLiteral("--pool"), QStringLiteral("0")});
        QVERIFY(next);
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), 20'000), QStringList());
        const QJsonObject result =
            next->callTool(QStringLiteral("run_js_code"), code(QStringLiteral("console.log(6*7)")));
        QCOMPARE(stdoutOf(result), QStringLiteral("42\n"));
    }

    void customImagesArePooledToo()
    {
        const QString custom = TestEngine::localImage(QStringLiteral("csm-test-pooled-js:latest"));
        bool ok = false;
        TestEngine::run({QStringLiteral("tag"),
                         TestEngine::localImage(QStringLiteral("code-sandbox-js:latest")), custom},
                        &ok);
        QVERIFY(ok);
        auto untag = qScopeGuard([&] { TestEngine::run({QStringLiteral("rmi"), custom}); });
        auto server = startServer(
            {QStringLiteral("--pool"), QStringLiteral("1"), QStringLiteral("--js-image"), custom});
        QVERIFY(server);
        QVERIFY(waitForReady(*server, 2));
        const QJsonObject result = server->callTool(
            QStringLiteral("run_js_code"), code(QStringLiteral("console.log(process.version)")));
        QVERIFY(stdoutOf(result).startsWith(u'v'));
        QVERIFY(server->standardError().contains(QStringLiteral("from ") + custom +
                                                 QStringLiteral(" (warm)")));
        server->closeStdin();
        QVERIFY(server->waitForExit(20'000));
    }

    void noPoolMeansNoWaitingContainers()
    {
        auto server = startServer({QStringLiteral("--pool"), QStringLiteral("0")});
        QVERIFY(server);
        QTest::qWait(1500);
        QCOMPARE(TestEngine::containersWithLabel(pidLabel(server->pid())), QStringList());
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"), code(QStringLiteral("print(1)")));
        QCOMPARE(stdoutOf(result), QStringLiteral("1\n"));
        QCOMPARE(countOf(server->standardError(), QStringLiteral("(cold)")), 1);
    }
};

QTEST_GUILESS_MAIN(TestWarmPool)
#include "tst_WarmPool.moc"
