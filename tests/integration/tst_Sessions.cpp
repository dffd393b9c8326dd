// Persistent sessions against a real engine (CSM_TEST_ENGINE) through the real server over
// stdio: state across cells and a final expression's value, an exception that keeps the
// session, a timeout that interrupts and keeps the state, a hard hang and an out-of-memory kill
// that end it (and a new one starts), a cell's chart coming back, the caps, list_sessions and
// end_session, and no container left after the client leaves or the server is killed. The js...
// tests do the same for JavaScript: top-level await, each cell's files, process.exit.
#include "CallResult.h"
#include "McpStdioClient.h"
#include "platform/MachineResources.h"
#include "TestEngine.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace callresult;

class tst_Sessions final : public QObject
{
    Q_OBJECT

private:
    // No pool unless asked for: the containers a test counts are its sessions'. `unset`: variables
    // of the test's environment the server must not see.
    std::unique_ptr<McpStdioClient> startServer(const QStringList& arguments = {}, int pool = 0,
                                                const QStringList& unset = {})
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
        for (const QString& name : unset)
            env.remove(name);
        auto client = std::make_unique<McpStdioClient>();
        if (!client->start(QStringList{QStringLiteral("--pool"), QString::number(pool),
                                       QStringLiteral("--no-history")} +
                               arguments,
                           env))
            return nullptr;
        if (client->initialize().isEmpty())
            return nullptr;
        return client;
    }

    static QJsonObject cellOf(McpStdioClient& server, const QString& tool, const QString& session,
                              const QString& code, double timeoutSeconds)
    {
        QJsonObject arguments{{QStringLiteral("code"), code}, {QStringLiteral("session"), session}};
        if (timeoutSeconds > 0)
            arguments.insert(QStringLiteral("timeout_seconds"), timeoutSeconds);
        return server.callTool(tool, arguments);
    }

    static QJsonObject cell(McpStdioClient& server, const QString& session, const QString& code,
                            double timeoutSeconds = 0)
    {
        return cellOf(server, QStringLiteral("run_python_code"), session, code, timeoutSeconds);
    }

    static QJsonObject jsCell(McpStdioClient& server, const QString& session, const QString& code,
                              double timeoutSeconds = 0)
    {
        return cellOf(server, QStringLiteral("run_js_code"), session, code, timeoutSeconds);
    }

    static QStringList filePathsOf(const QJsonObject& result)
    {
        QStringList paths;
        const QJsonArray files = structured(result).value(QLatin1String("files")).toArray();
        for (const QJsonValue& file : files)
            paths << file.toObject().value(QLatin1String("path")).toString();
        return paths;
    }

    static QString textOf(McpStdioClient& server, const QString& tool,
                          const QJsonObject& arguments = {})
    {
        return text(server.callTool(tool, arguments));
    }

    // How many containers the server `pid` has, once it has `count` (or after a minute).
    static qsizetype waitForContainers(qint64 pid, qsizetype count)
    {
        QElapsedTimer waited;
        waited.start();
        qsizetype now = 0;
        while ((now = TestEngine::containersWithLabel(pidLabel(pid)).size()) < count &&
               waited.elapsed() < 60'000)
            QTest::qWait(200);
        return now;
    }

    static void expectNoContainerAfterExit(McpStdioClient& server, qint64 pid)
    {
        QVERIFY(server.waitForExit(30'000));
        const QStringList left = TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), 10'000);
        // What was left, and the server's last words about it, are what a failure needs.
        QVERIFY2(left.isEmpty(), qPrintable(TestEngine::describeContainers(left) +
                                            QStringLiteral("\nthe server's log:\n") +
                                            server.standardError().right(6000)));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")) &&
                     TestEngine::hasLocalImage(QStringLiteral("code-sandbox-js:latest")),
                 "the sandbox images must be built (containers/build-images)");
    }

    void stateAndFinalExpressionsAcrossCells()
    {
        auto server = startServer();
        QVERIFY(server);
        QVERIFY(!isError(cell(*server, QStringLiteral("analysis"),
                              QStringLiteral("import pandas as pd\n"
                                             "df = pd.DataFrame({'region': ['n', 's', 'n'], "
                                             "'sales': [1, 2, 3]})\n"))));
        QCOMPARE(stdoutOf(cell(*server, QStringLiteral("analysis"),
                               QStringLiteral("df.groupby('region')['sales'].sum().to_dict()"))),
                 QStringLiteral("{'n': 4, 's': 2}\n"));
        // A chart made in a cell comes back with that cell.
        const QJsonObject chart = cell(*server, QStringLiteral("analysis"),
                                       QStringLiteral("import matplotlib.pyplot as plt\n"
                                                      "df.plot.bar(x='region')\nplt.show()\n"));
        QVERIFY2(!blocksOfType(chart, QStringLiteral("image")).isEmpty(),
                 describe(chart).constData());
        // Another name is another interpreter.
        QVERIFY(stdoutOf(cell(*server, QStringLiteral("other"),
                              QStringLiteral("print('df' in globals())")))
                    .startsWith(QLatin1String("False")));
        const QString listed = textOf(*server, QStringLiteral("list_sessions"));
        QVERIFY2(listed.contains(QLatin1String("analysis (Python): 3 cell(s)")) &&
                     listed.contains(QLatin1String("other (Python): 1 cell(s)")),
                 qPrintable(listed));
        // The memory each holds, read from its container's cgroup after its last cell.
        QCOMPARE(listed.count(QLatin1String(" MiB of memory")), 2);
    }

    void newSessionsStartFromTheWarmPool_data()
    {
        QTest::addColumn<QString>("tool");
        // Where the cell runs: a pooled container has the launcher's socket folder mounted, and
        // Python's driver there has imported pandas before it said it was ready.
        QTest::addColumn<QString>("probe");
        QTest::addColumn<QString>("cold");
        QTest::addColumn<QString>("pooled");
        QTest::addColumn<QString>("define");
        QTest::addColumn<QString>("die");
        // The socket's folder stays mounted while the session lives: it is on the host's disk,
        // and a cell must not be able to fill it. (A remote engine's has none: it stays
        // attached.) Pooled or not, the launcher (PID 1) says: it waits with --listen.
        QTest::addColumn<QString>("fill");
        QTest::addColumn<QString>("refused");
        QTest::newRow("python") << QStringLiteral("run_python_code")
                                << QStringLiteral("import sys\n"
                                                  "('--listen' in open('/proc/1/cmdline').read(), "
                                                  "'pandas' in sys.modules)")
                                << QStringLiteral("(False, False)\n")
                                << QStringLiteral("(True, True)\n") << QStringLiteral("x = 41")
                                << QStringLiteral("import os\nos._exit(3)")
                                << QStringLiteral(
                                       "try:\n"
                                       "    open('/.code-sandbox/io/fill', 'w').write('x' * 1024)\n"
                                       "    print('host folder writable')\n"
                                       "except OSError as error:\n"
                                       "    print('refused', error.errno)\n")
                                << (TestEngine::isRemote() ? QStringLiteral("refused 2\n")
                                                           : QStringLiteral("refused 13\n"));
        QTest::newRow("javascript")
            << QStringLiteral("run_js_code")
            << QStringLiteral("require('fs').readFileSync('/proc/1/cmdline', "
                              "'latin1').includes('--listen')")
            << QStringLiteral("false\n") << QStringLiteral("true\n")
            << QStringLiteral("let x = 41;") << QStringLiteral("process.exit(3);")
            << QStringLiteral("try {\n"
                              "  require('fs').writeFileSync('/.code-sandbox/io/fill', 'x');\n"
                              "  console.log('host folder writable');\n"
                              "} catch (error) {\n"
                              "  console.log('refused', error.code);\n"
                              "}\n")
            << (TestEngine::isRemote() ? QStringLiteral("refused ENOENT\n")
                                       : QStringLiteral("refused EACCES\n"));
    }

    void newSessionsStartFromTheWarmPool()
    {
        QFETCH(QString, tool);
        QFETCH(QString, probe);
        QFETCH(QString, cold);
        QFETCH(QString, pooled);
        QFETCH(QString, define);
        QFETCH(QString, die);
        QFETCH(QString, fill);
        QFETCH(QString, refused);
        auto server = startServer({}, 1);
        QVERIFY(server);
        const qint64 pid = server->pid();
        // The first session of an image starts a container of its own...
        QCOMPARE(stdoutOf(cellOf(*server, tool, QStringLiteral("first"), probe, 0)), cold);
        // ...and from then on one waits for the next (beside the pool's one-shot containers of
        // both languages and the first session's).
        QCOMPARE(waitForContainers(pid, 4), 4);
        const QJsonObject first = cellOf(*server, tool, QStringLiteral("second"), probe, 0);
        QVERIFY2(!isError(first), describe(first).constData());
        QCOMPARE(stdoutOf(first), pooled);
        QCOMPARE(stdoutOf(cellOf(*server, tool, QStringLiteral("second"), fill, 0)), refused);
        // It is a session like any other: state across cells, a timeout interrupts the cell
        // and keeps the state.
        QVERIFY(!isError(cellOf(*server, tool, QStringLiteral("second"), define, 0)));
        const QJsonObject stuck =
            cellOf(*server, tool, QStringLiteral("second"),
                   tool == QLatin1String("run_js_code") ? QStringLiteral("while (true) {}")
                                                        : QStringLiteral("while True:\n    pass\n"),
                   1);
        QCOMPARE(structured(stuck).value(QLatin1String("timed_out")).toBool(), true);
        QVERIFY2(text(stuck).contains(QLatin1String("the session keeps its state")),
                 describe(stuck).constData());
        QCOMPARE(
            stdoutOf(cellOf(*server, tool, QStringLiteral("second"), QStringLiteral("x + 1"), 0)),
            QStringLiteral("42\n"));
        QVERIFY2(textOf(*server, QStringLiteral("list_sessions")).contains(QLatin1String("second")),
                 "list_sessions names the pooled session");
        // Ended, its container goes; a new one is waiting already.
        QVERIFY(textOf(*server, QStringLiteral("end_session"),
                       {{QStringLiteral("session"), QStringLiteral("second")}})
                    .contains(QLatin1String("ended")));
        QCOMPARE(stdoutOf(cellOf(*server, tool, QStringLiteral("third"), probe, 0)), pooled);
        // Its interpreter dies: the cell says the state is gone, and the next call of that name
        // starts a new session, from the pool again (the container that replaced the one it
        // took has been starting since).
        const QJsonObject died = cellOf(*server, tool, QStringLiteral("third"), die, 0);
        QVERIFY2(isError(died) && text(died).contains(QLatin1String("exit code 3")) &&
                     text(died).contains(QLatin1String("state is gone")),
                 describe(died).constData());
        QCOMPARE(stdoutOf(cellOf(*server, tool, QStringLiteral("third"), probe, 0)), pooled);
        server->closeStdin();
        expectNoContainerAfterExit(*server, pid);
    }

    void anExceptionKeepsTheSession_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("keep");
        QTest::addColumn<QString>("failing");
        QTest::addColumn<QStringList>("trace");
        QTest::addColumn<QString>("check");
        QTest::addColumn<QString>("checked");
        QTest::newRow("python") << QStringLiteral("run_python_code") << QStringLiteral("kept = 7")
                                << QStringLiteral("x = 1\nraise ValueError('bad')\n")
                                << QStringList{QStringLiteral("File \"<cell 2>\", line 2"),
                                               QStringLiteral("ValueError: bad")}
                                << QStringLiteral("kept, x") << QStringLiteral("(7, 1)\n");
        QTest::newRow("javascript")
            << QStringLiteral("run_js_code") << QStringLiteral("const kept = 7;")
            << QStringLiteral("let x = 1;\nthrow new RangeError('bad');\n")
            << QStringList{QStringLiteral("<cell-2>:2\nthrow new RangeError('bad');\n"),
                           QStringLiteral("RangeError: bad\n    at <cell-2>:2:7")}
            << QStringLiteral("[kept, x]") << QStringLiteral("[ 7, 1 ]\n");
    }

    void anExceptionKeepsTheSession()
    {
        QFETCH(QString, tool);
        QFETCH(QString, keep);
        QFETCH(QString, failing);
        QFETCH(QStringList, trace);
        QFETCH(QString, check);
        QFETCH(QString, checked);
        auto server = startServer();
        QVERIFY(server);
        cellOf(*server, tool, QStringLiteral("s"), keep, 0);
        const QJsonObject failed = cellOf(*server, tool, QStringLiteral("s"), failing, 0);
        QVERIFY(isError(failed));
        QCOMPARE(structured(failed).value(QLatin1String("exit_code")).toInt(), 1);
        for (const QString& part : trace)
            QVERIFY2(text(failed).contains(part), qPrintable(text(failed)));
        QCOMPARE(stdoutOf(cellOf(*server, tool, QStringLiteral("s"), check, 0)), checked);
    }

    void aTimeoutInterruptsTheCellAndKeepsTheState_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("keep");
        QTest::addColumn<QString>("stuck");
        QTest::newRow("python") << QStringLiteral("run_python_code")
                                << QStringLiteral("kept = 'yes'")
                                << QStringLiteral(
                                       "import time\nwhile True:\n    time.sleep(0.05)\n");
        QTest::newRow("javascript busy loop")
            << QStringLiteral("run_js_code") << QStringLiteral("let kept = 'yes';")
            << QStringLiteral("while (true) {}");
        QTest::newRow("javascript await")
            << QStringLiteral("run_js_code") << QStringLiteral("let kept = 'yes';")
            << QStringLiteral("await new Promise(() => {});");
    }

    void cellsSentTogetherRunInTurn()
    {
        auto server = startServer();
        QVERIFY(server);
        // As an assistant calling tools in parallel would: the second cell waits for the first.
        const auto send = [&](const QString& code) {
            return server->sendRequest(
                QStringLiteral("tools/call"),
                {{QStringLiteral("name"), QStringLiteral("run_python_code")},
                 {QStringLiteral("arguments"),
                  QJsonObject{{QStringLiteral("code"), code},
                              {QStringLiteral("session"), QStringLiteral("turns")}}}});
        };
        const int first = send(QStringLiteral("import time\ntime.sleep(1.5)\nx = 5\n"));
        const int second = send(QStringLiteral("x * 2"));
        const int third = send(QStringLiteral("x * 3"));
        const auto firstDone = server->waitForResponse(first, 60'000);
        const auto secondDone = server->waitForResponse(second, 60'000);
        const auto thirdDone = server->waitForResponse(third, 60'000);
        QVERIFY(firstDone && secondDone && thirdDone);
        const QJsonObject secondResult = secondDone->value(u"result").toObject();
        QVERIFY2(!isError(secondResult), describe(secondResult).constData());
        QCOMPARE(stdoutOf(secondResult), QStringLiteral("10\n"));
        QCOMPARE(stdoutOf(thirdDone->value(u"result").toObject()), QStringLiteral("15\n"));

        // A cell that cannot get its turn within its timeout says so, and never runs.
        const int busy = send(QStringLiteral("time.sleep(4)"));
        const int late =
            server->sendRequest(QStringLiteral("tools/call"),
                                {{QStringLiteral("name"), QStringLiteral("run_python_code")},
                                 {QStringLiteral("arguments"),
                                  QJsonObject{{QStringLiteral("code"), QStringLiteral("x = 99")},
                                              {QStringLiteral("session"), QStringLiteral("turns")},
                                              {QStringLiteral("timeout_seconds"), 1}}}});
        const auto lateDone = server->waitForResponse(late, 30'000);
        QVERIFY(lateDone);
        const QJsonObject lateResult = lateDone->value(u"result").toObject();
        QVERIFY(isError(lateResult));
        QVERIFY2(text(lateResult).contains(QLatin1String("waiting for the session's running cell")),
                 describe(lateResult).constData());
        QVERIFY(server->waitForResponse(busy, 30'000));
        QCOMPARE(stdoutOf(cell(*server, QStringLiteral("turns"), QStringLiteral("x"))),
                 QStringLiteral("5\n"));

        // The session ends while a cell waits for its turn: that cell never runs, anywhere.
        const int running = send(QStringLiteral("time.sleep(2)"));
        const int waiting = send(QStringLiteral("print('ran without its session')"));
        QTest::qWait(300);
        textOf(*server, QStringLiteral("end_session"),
               {{QStringLiteral("session"), QStringLiteral("turns")}});
        QVERIFY(server->waitForResponse(running, 30'000));
        const auto orphan = server->waitForResponse(waiting, 30'000);
        QVERIFY(orphan);
        const QJsonObject orphanResult = orphan->value(u"result").toObject();
        QVERIFY2(isError(orphanResult), describe(orphanResult).constData());
        QVERIFY2(!stdoutOf(orphanResult).contains(QLatin1String("ran without")),
                 describe(orphanResult).constData());
        QVERIFY2(text(orphanResult).contains(QLatin1String("state is gone")),
                 describe(orphanResult).constData());
    }

    void aTimeoutInterruptsTheCellAndKeepsTheState()
    {
        QFETCH(QString, tool);
        QFETCH(QString, keep);
        QFETCH(QString, stuck);
        auto server = startServer();
        QVERIFY(server);
        cellOf(*server, tool, QStringLiteral("s"), keep, 0);
        const QJsonObject timedOut = cellOf(*server, tool, QStringLiteral("s"), stuck, 1);
        QCOMPARE(structured(timedOut).value(QLatin1String("timed_out")).toBool(), true);
        QVERIFY2(text(timedOut).contains(QLatin1String("the session keeps its state")),
                 qPrintable(text(timedOut)));
        QCOMPARE(stdoutOf(cellOf(*server, tool, QStringLiteral("s"), QStringLiteral("kept"), 0)),
                 QStringLiteral("'yes'\n"));
    }

    void aHardHangEndsTheSessionAndTheNextCallStartsANewOne()
    {
        auto server = startServer();
        QVERIFY(server);
        cell(*server, QStringLiteral("s"), QStringLiteral("kept = 1"));
        const QJsonObject hung =
            cell(*server, QStringLiteral("s"),
                 QStringLiteral("import signal\n"
                                "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                                "while True:\n    pass\n"),
                 1);
        QCOMPARE(structured(hung).value(QLatin1String("timed_out")).toBool(), true);
        QVERIFY2(text(hung).contains(QLatin1String("did not stop")) &&
                     text(hung).contains(QLatin1String("state is gone")),
                 qPrintable(text(hung)));
        const QJsonObject fresh =
            cell(*server, QStringLiteral("s"), QStringLiteral("print('kept' in globals())"));
        QCOMPARE(stdoutOf(fresh), QStringLiteral("False\n"));
    }

    void runningOutOfMemoryEndsTheSessionClearly()
    {
        auto server = startServer({QStringLiteral("--memory"), QStringLiteral("256m")});
        QVERIFY(server);
        cell(*server, QStringLiteral("s"), QStringLiteral("kept = 1"));
        const QJsonObject killed =
            cell(*server, QStringLiteral("s"), QStringLiteral("b = b'x' * (1024 ** 3)"), 30);
        QVERIFY(isError(killed));
        QVERIFY2(text(killed).contains(QLatin1String("state is gone")), qPrintable(text(killed)));
        QCOMPARE(stdoutOf(cell(*server, QStringLiteral("s"),
                               QStringLiteral("print('kept' in globals())"))),
                 QStringLiteral("False\n"));
    }

    void jsStateFinalValuesAndFilesAcrossCells()
    {
        auto server = startServer();
        QVERIFY(server);
        QJsonObject first = jsCell(*server, QStringLiteral("js"),
                                   QStringLiteral("const fs = require('fs');\n"
                                                  "let total = 40;\n"
                                                  "fs.writeFileSync('out/first.txt', 'one');\n"));
        QVERIFY2(!isError(first), describe(first).constData());
        QCOMPARE(filePathsOf(first), QStringList{QStringLiteral("first.txt")});
        // Top-level await; what the cell declares is there for the next one.
        QVERIFY(!isError(jsCell(*server, QStringLiteral("js"),
                                QStringLiteral("const extra = await new Promise((resolve) => "
                                               "setTimeout(() => resolve(2), 10));"))));
        const QJsonObject second =
            jsCell(*server, QStringLiteral("js"),
                   QStringLiteral("fs.writeFileSync('out/second.txt', 'two');\n"
                                  "({ answer: total + extra, files: fs.readdirSync('out') })"));
        QCOMPARE(stdoutOf(second), QStringLiteral("{ answer: 42, files: [ 'second.txt' ] }\n"));
        // Each cell returns the files it made, and only those.
        QCOMPARE(filePathsOf(second), QStringList{QStringLiteral("second.txt")});
        QVERIFY2(textOf(*server, QStringLiteral("list_sessions"))
                     .contains(QLatin1String("js (JavaScript): 3 cell(s)")),
                 "list_sessions names the JavaScript session");
        // A Python session of the same name is refused; another name is another interpreter.
        QVERIFY(isError(cell(*server, QStringLiteral("js"), QStringLiteral("1"))));
        QCOMPARE(stdoutOf(jsCell(*server, QStringLiteral("other"), QStringLiteral("typeof total"))),
                 QStringLiteral("'undefined'\n"));
    }

    void jsExitEndsTheSessionAndTheNextCallStartsANewOne()
    {
        auto server = startServer();
        QVERIFY(server);
        jsCell(*server, QStringLiteral("s"), QStringLiteral("let kept = 1;"));
        const QJsonObject ended = jsCell(*server, QStringLiteral("s"),
                                         QStringLiteral("console.log('bye'); process.exit(3);"));
        QVERIFY(isError(ended));
        QCOMPARE(stdoutOf(ended), QStringLiteral("bye\n"));
        QVERIFY2(text(ended).contains(QLatin1String("exit code 3")) &&
                     text(ended).contains(QLatin1String("state is gone")),
                 qPrintable(text(ended)));
        QCOMPARE(stdoutOf(jsCell(*server, QStringLiteral("s"), QStringLiteral("typeof kept"))),
                 QStringLiteral("'undefined'\n"));
    }

    void capsRefuseClearly()
    {
        auto server = startServer();
        QVERIFY(server);
        for (int i = 0; i < 4; ++i) {
            QVERIFY(!isError(cell(*server, QStringLiteral("s%1").arg(i), QStringLiteral("1"))));
        }
        const QJsonObject refused = cell(*server, QStringLiteral("s4"), QStringLiteral("1"));
        QVERIFY(isError(refused));
        QVERIFY2(text(refused).contains(QLatin1String("already has 4 live sessions")),
                 qPrintable(text(refused)));
        QVERIFY(isError(cell(*server, QStringLiteral("bad name!"), QStringLiteral("1"))));
        // Ending one makes room.
        QVERIFY(textOf(*server, QStringLiteral("end_session"),
                       {{QStringLiteral("session"), QStringLiteral("s0")}})
                    .contains(QLatin1String("ended")));
        QVERIFY(!isError(cell(*server, QStringLiteral("s4"), QStringLiteral("1"))));
    }

    void liveSessionsMustFitInMemory()
    {
        // A session keeps its memory between cells. With a memory limit of a third of the
        // machine's, two sandboxes fit: live sessions and running sandboxes count together.
        const qint64 machine = csm::MachineResources::physicalMemoryBytes();
        QVERIFY(machine > 0);
        const qint64 eachMiB = machine / 3 / (1024 * 1024) + 64;
        auto server = startServer({QStringLiteral("--memory"), QStringLiteral("%1m").arg(eachMiB)});
        QVERIFY(server);
        QVERIFY(!isError(cell(*server, QStringLiteral("a"), QStringLiteral("1"))));
        QVERIFY(!isError(cell(*server, QStringLiteral("b"), QStringLiteral("1"))));
        const QJsonObject refused = cell(*server, QStringLiteral("c"), QStringLiteral("1"));
        QVERIFY(isError(refused));
        QVERIFY2(text(refused).contains(QLatin1String("would not fit in this machine's memory: 2 "
                                                      "live session(s)")) &&
                     text(refused).contains(QStringLiteral("up to %1 MiB").arg(eachMiB)),
                 qPrintable(text(refused)));
        // A one-shot run is still served (--max-running caps those), and a live session's
        // next cell too.
        QCOMPARE(stdoutOf(server->callTool(QStringLiteral("run_python_code"),
                                           {{QStringLiteral("code"), QStringLiteral("print(2)")}})),
                 QStringLiteral("2\n"));
        QVERIFY(!isError(cell(*server, QStringLiteral("b"), QStringLiteral("2"))));
        // Ending one makes room.
        QVERIFY(textOf(*server, QStringLiteral("end_session"),
                       {{QStringLiteral("session"), QStringLiteral("a")}})
                    .contains(QLatin1String("ended")));
        QVERIFY(!isError(cell(*server, QStringLiteral("c"), QStringLiteral("1"))));
    }

    void endedAndLeftSessionsLeaveNoContainer()
    {
        auto server = startServer();
        QVERIFY(server);
        const qint64 pid = server->pid();
        cell(*server, QStringLiteral("a"), QStringLiteral("1"));
        cell(*server, QStringLiteral("b"), QStringLiteral("1"));
        QCOMPARE(TestEngine::containersWithLabel(pidLabel(pid)).size(), 2);
        textOf(*server, QStringLiteral("end_session"),
               {{QStringLiteral("session"), QStringLiteral("a")}});
        QCOMPARE(textOf(*server, QStringLiteral("list_sessions")).count(QLatin1String("(Python)")),
                 1);
        // The client leaves (end of stdin): its sessions go with it.
        server->closeStdin();
        expectNoContainerAfterExit(*server, pid);
    }

    void anIdleSessionEndsAndItsClientHearsSo()
    {
        auto server = startServer({QStringLiteral("--interpreter-idle"), QStringLiteral("10")});
        QVERIFY(server);
        const qint64 pid = server->pid();
        QVERIFY(!isError(cell(*server, QStringLiteral("idle"), QStringLiteral("kept = 1"))));
        QCOMPARE(TestEngine::containersWithLabel(pidLabel(pid)).size(), 1);
        // Checked every quarter of the idle time: gone within about 12.5 s, the server still up.
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), 20'000), QStringList());
        QVERIFY(textOf(*server, QStringLiteral("list_sessions")).contains(u"No live sessions"));
        const QJsonObject told = cell(*server, QStringLiteral("idle"), QStringLiteral("kept"));
        QVERIFY(isError(told));
        QVERIFY2(text(told).contains(QLatin1String("idle for 10 s")) &&
                     text(told).contains(QLatin1String("state is gone")),
                 describe(told).constData());
        // The next call starts a new one, without the old state.
        QCOMPARE(stdoutOf(cell(*server, QStringLiteral("idle"), QStringLiteral("'kept' in dir()"))),
                 QStringLiteral("False\n"));
    }

    void aSettingsChangeEndsTheLiveSessions_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("why");
        // From the default, egress through the proxy, to none: a session's container keeps
        // the network it started with, so it must not run another cell.
        QTest::newRow("network") << QStringLiteral("egress") << QStringLiteral("none")
                                 << QStringLiteral("the sandboxes' network setting changed");
        QTest::newRow("limits") << QStringLiteral("memory") << QStringLiteral("256m")
                                << QStringLiteral(
                                       "the sandboxes' limits or shared folders changed");
    }

    void aSettingsChangeEndsTheLiveSessions()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, why);
        QTemporaryDir data;
        QVERIFY(data.isValid());
        // The settings file says where it starts from: the remote suites' variable would beat it.
        {
            QSettings file(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            file.setValue(QStringLiteral("server/egress"), QStringLiteral("open"));
        }
        auto server = startServer({QStringLiteral("--data-dir"), data.path()}, 0,
                                  {QStringLiteral("CODE_SANDBOX_EGRESS")});
        QVERIFY(server);
        const qint64 pid = server->pid();
        QVERIFY(!isError(cell(*server, QStringLiteral("s"), QStringLiteral("kept = 1"))));
        {
            QSettings file(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            file.setValue(QStringLiteral("server/") + key, value);
        }
        QTRY_VERIFY_WITH_TIMEOUT(server->standardError().contains(QStringLiteral("ends: ") + why),
                                 10'000);
        const QJsonObject told = cell(*server, QStringLiteral("s"), QStringLiteral("kept"));
        QVERIFY(isError(told));
        QVERIFY2(text(told).contains(why) && text(told).contains(QLatin1String("state is gone")),
                 describe(told).constData());
        // The next call starts a new session, under the new settings.
        QCOMPARE(stdoutOf(cell(*server, QStringLiteral("s"), QStringLiteral("'kept' in dir()"))),
                 QStringLiteral("False\n"));
        // The old session's container is gone; the new one's is there.
        QTRY_COMPARE_WITH_TIMEOUT(TestEngine::containersWithLabel(pidLabel(pid)).size(), 1, 10'000);
    }

    void sessionsCanBeTurnedOff()
    {
        auto server = startServer({QStringLiteral("--max-interpreters"), QStringLiteral("0")});
        QVERIFY(server);
        const QJsonObject refused = cell(*server, QStringLiteral("s"), QStringLiteral("1"));
        QVERIFY(isError(refused));
        QVERIFY2(text(refused).contains(QLatin1String("--max-interpreters 0")),
                 describe(refused).constData());
        QCOMPARE(TestEngine::containersWithLabel(pidLabel(server->pid())).size(), 0);
    }

    void aKilledServersSessionsAreRemovedByTheNext()
    {
        auto killed = startServer();
        QVERIFY(killed);
        const qint64 pid = killed->pid();
        cell(*killed, QStringLiteral("a"), QStringLiteral("1"));
        QCOMPARE(TestEngine::containersWithLabel(pidLabel(pid)).size(), 1);
        ::kill(static_cast<pid_t>(pid), SIGKILL);
        QVERIFY(killed->waitForExit(10'000));
        auto next = startServer();
        QVERIFY(next);
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), 30'000), QStringList());
    }
};

QTEST_GUILESS_MAIN(tst_Sessions)
#include "tst_Sessions.moc"
