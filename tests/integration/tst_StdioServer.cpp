// The real code-sandbox-mcp binary over stdio against a real container engine
// (CSM_TEST_ENGINE=podman|docker): what an MCP client sees, including cleanup.
#include "CallResult.h"
#include "HostProcesses.h"
#include "McpStdioClient.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace callresult;

using hostprocesses::allCommandLines;

class TestStdioServer final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<McpStdioClient> startServer(const QStringList& arguments = {},
                                                const QMap<QString, QString>& environment = {})
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
        for (auto it = environment.cbegin(); it != environment.cend(); ++it)
            env.insert(it.key(), it.value());
        auto client = std::make_unique<McpStdioClient>();
        // These tests count a call's containers by the server's pid label: without a warm pool,
        // every container is a call's own (tst_WarmPool covers the pool).
        if (!client->start(QStringList{QStringLiteral("--pool"), QStringLiteral("0")} + arguments,
                           env))
            return nullptr;
        const QJsonObject init = client->initialize();
        if (init.value(QLatin1String("protocolVersion")).toString() != QLatin1String("2025-11-25"))
            return nullptr;
        return client;
    }

    // Waits until the server has a container (so the program is really running).
    bool waitForContainer(qint64 serverPid)
    {
        QDeadlineTimer deadline(20'000);
        while (!deadline.hasExpired()) {
            if (!TestEngine::containersWithLabel(pidLabel(serverPid)).isEmpty())
                return true;
            QTest::qWait(100);
        }
        return false;
    }

    std::unique_ptr<McpStdioClient> m_server;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")),
                 "the python sandbox image must be built (containers/build-images)");
        m_server = startServer();
        QVERIFY(m_server);
    }

    void cleanupTestCase()
    {
        // Every run so far ended normally: --rm must have left nothing behind.
        QVERIFY(m_server);
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(m_server->pid()), 15'000),
                 QStringList());
        m_server->closeStdin();
        QVERIFY(m_server->waitForExit(15'000));
        QCOMPARE(m_server->process().exitCode(), 0);
    }

    void pythonPrintsItsResult()
    {
        const QJsonObject result = m_server->callTool(QStringLiteral("run_python_code"),
                                                      code(QStringLiteral("print(6*7)")));
        QCOMPARE(structured(result).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("42\n"));
        QCOMPARE(structured(result).value(QLatin1String("stderr")).toString(), QString());
        QCOMPARE(structured(result).value(QLatin1String("exit_code")).toInt(-1), 0);
        QCOMPARE(structured(result).value(QLatin1String("timed_out")).toBool(true), false);
        QVERIFY(structured(result).value(QLatin1String("duration_ms")).toInt() > 0);
        QCOMPARE(isError(result), false);
        QCOMPARE(text(result), QStringLiteral("42\n"));
    }

    void stdoutStderrAndExitCodeAreSeparate()
    {
        const QJsonObject result = m_server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import sys\nprint('to out')\nprint('to err', file=sys.stderr)\n"
                                "sys.exit(3)\n")));
        QCOMPARE(structured(result).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("to out\n"));
        QCOMPARE(structured(result).value(QLatin1String("stderr")).toString(),
                 QStringLiteral("to err\n"));
        QCOMPARE(structured(result).value(QLatin1String("exit_code")).toInt(), 3);
        QVERIFY(isError(result));
        QCOMPARE(text(result), QStringLiteral("to out\n[stderr]\nto err\n[exit code: 3]"));
    }

    void stderrIsKeptOnSuccess()
    {
        const QJsonObject result = m_server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import warnings\nwarnings.warn('careful')\nprint('done')")));
        QCOMPARE(isError(result), false);
        QVERIFY(structured(result)
                    .value(QLatin1String("stderr"))
                    .toString()
                    .contains(QLatin1String("careful")));
    }

    void emptyOutputIsNotAnError()
    {
        const QJsonObject result =
            m_server->callTool(QStringLiteral("run_python_code"), code(QStringLiteral("x = 1")));
        QCOMPARE(isError(result), false);
        QCOMPARE(structured(result).value(QLatin1String("stdout")).toString(), QString());
        QCOMPARE(structured(result).value(QLatin1String("exit_code")).toInt(-1), 0);
        QVERIFY(!text(result).isEmpty());
    }

    void killedProgramReports137()
    {
        const QJsonObject result = m_server->callTool(
            QStringLiteral("run_python_code"),
            code(
                QStringLiteral("import os\nprint('before', flush=True)\nos.kill(os.getpid(), 9)")));
        QCOMPARE(structured(result).value(QLatin1String("exit_code")).toInt(), 137);
        QCOMPARE(structured(result).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("before\n"));
        QVERIFY(isError(result));
    }

    void nonUtf8OutputStaysValidJson()
    {
        const QJsonObject result = m_server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral(
                "import sys\nsys.stdout.buffer.write(b'\\xff\\xfe ok \\xe2\\x82\\n')\n"
                "sys.stderr.buffer.write(b'\\x00\\x80 err\\n')")));
        // McpStdioClient records a line that is not valid UTF-8 JSON as "invalid_line".
        QVERIFY(!result.isEmpty());
        const QString out = structured(result).value(QLatin1String("stdout")).toString();
        QVERIFY(out.contains(QLatin1String(" ok ")));
        QVERIFY(out.contains(QChar::ReplacementCharacter));
        QVERIFY(structured(result)
                    .value(QLatin1String("stderr"))
                    .toString()
                    .contains(QLatin1String(" err")));
        QCOMPARE(structured(result).value(QLatin1String("exit_code")).toInt(-1), 0);
    }

    void oneMebibyteOfCode()
    {
        const QString program = QStringLiteral("s = '") + QString(1024 * 1024, u'a') +
                                QStringLiteral("'\nprint(len(s))\n");
        const QJsonObject result =
            m_server->callTool(QStringLiteral("run_python_code"), code(program));
        QCOMPARE(structured(result).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("1048576\n"));
    }

    void javascriptRuns()
    {
        const QJsonObject ok = m_server->callTool(QStringLiteral("run_js_code"),
                                                  code(QStringLiteral("console.log(6*7)")));
        QCOMPARE(structured(ok).value(QLatin1String("stdout")).toString(), QStringLiteral("42\n"));
        QCOMPARE(isError(ok), false);

        const QJsonObject failing = m_server->callTool(
            QStringLiteral("run_js_code"),
            code(QStringLiteral("console.log('a'); console.error('b'); process.exit(3)")));
        QCOMPARE(structured(failing).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("a\n"));
        QCOMPARE(structured(failing).value(QLatin1String("stderr")).toString(),
                 QStringLiteral("b\n"));
        QCOMPARE(structured(failing).value(QLatin1String("exit_code")).toInt(), 3);
        QVERIFY(isError(failing));

        const QJsonObject thrown = m_server->callTool(
            QStringLiteral("run_js_code"), code(QStringLiteral("throw new Error('boom')")));
        QCOMPARE(structured(thrown).value(QLatin1String("exit_code")).toInt(), 1);
        QVERIFY(structured(thrown)
                    .value(QLatin1String("stderr"))
                    .toString()
                    .contains(QLatin1String("boom")));
    }

    void javascriptAliasIsCallableButNotListed()
    {
        const QJsonObject result = m_server->callTool(QStringLiteral("run_javascript_code"),
                                                      code(QStringLiteral("console.log('alias')")));
        QCOMPARE(structured(result).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("alias\n"));
        QStringList names;
        const QJsonArray tools =
            m_server->request(QStringLiteral("tools/list")).value(QLatin1String("tools")).toArray();
        for (const QJsonValue& tool : tools)
            names << tool.toObject().value(QLatin1String("name")).toString();
        QCOMPARE(names,
                 QStringList({QStringLiteral("run_python_code"), QStringLiteral("run_js_code"),
                              QStringLiteral("list_sessions"), QStringLiteral("end_session")}));
    }

    void runningCallNeverBlocksPingOrAnotherCall()
    {
        // Long enough for the other call to start a container of its own: on a busy machine a
        // cold start takes seconds, and more on a remote engine.
        const int slowSeconds = TestEngine::isRemote() ? 12 : 6;
        const int slow = m_server->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"),
              code(
                  QStringLiteral("import time\ntime.sleep(%1)\nprint('slow')").arg(slowSeconds))}});
        QElapsedTimer clock;
        clock.start();
        const int ping = m_server->sendRequest(QStringLiteral("ping"));
        const auto pong = m_server->waitForResponse(ping, 2'000);
        QVERIFY(pong);
        QVERIFY2(clock.elapsed() < 1'500, "ping waited for a running call");
        QCOMPARE(pong->value(QLatin1String("result")).toObject(), QJsonObject());

        const QJsonObject fast = m_server->callTool(QStringLiteral("run_js_code"),
                                                    code(QStringLiteral("console.log('fast')")));
        QCOMPARE(structured(fast).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("fast\n"));
        // The second call's answer came while the first still ran: the first's has not come
        // yet. (Not the clock against slowSeconds: the first's program starts its sleep only
        // once its own container is up, and under load a cold start took over 4 s.)
        QVERIFY2(!m_server->waitForResponse(slow, 0), "the second call waited for the first");

        const auto slowResponse = m_server->waitForResponse(slow, 30'000);
        QVERIFY(slowResponse);
        QCOMPARE(structured(slowResponse->value(QLatin1String("result")).toObject())
                     .value(QLatin1String("stdout"))
                     .toString(),
                 QStringLiteral("slow\n"));
    }

    void progressNotificationsCarryTheLatestLine()
    {
        // A 5 s program printing a line a second: progress arrives while it runs, before the
        // response, with growing progress and the program's own lines as messages.
        const int id = m_server->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"),
              code(QStringLiteral("import time\nfor i in range(5):\n    print(f'step {i}')\n"
                                  "    time.sleep(1)"))},
             {QStringLiteral("_meta"),
              QJsonObject{{QStringLiteral("progressToken"), QStringLiteral("tok-1")}}}});
        QList<QJsonObject> progress;
        std::optional<QJsonObject> response;
        QElapsedTimer clock;
        clock.start();
        while (!response && clock.elapsed() < 30'000) {
            const auto message = m_server->waitForMessage(
                [id](const QJsonObject& m) {
                    return m.value(QLatin1String("id")).toInt(-1) == id ||
                           m.value(QLatin1String("method")).toString() ==
                               QLatin1String("notifications/progress");
                },
                30'000);
            QVERIFY(message);
            if (message->contains(QLatin1String("id")))
                response = message;
            else
                progress << message->value(QLatin1String("params")).toObject();
        }
        QVERIFY(response);
        QVERIFY2(progress.size() >= 3, qPrintable(QString::number(progress.size())));
        double previous = -1;
        QStringList messages;
        for (const QJsonObject& params : std::as_const(progress)) {
            QCOMPARE(params.value(QLatin1String("progressToken")).toString(),
                     QStringLiteral("tok-1"));
            QVERIFY(params.value(QLatin1String("progress")).toDouble() > previous);
            previous = params.value(QLatin1String("progress")).toDouble();
            messages << params.value(QLatin1String("message")).toString();
        }
        QVERIFY2(messages.contains(QStringLiteral("step 2")), qPrintable(messages.join(u'|')));
        QCOMPARE(stdoutOf(response->value(QLatin1String("result")).toObject()),
                 QStringLiteral("step 0\nstep 1\nstep 2\nstep 3\nstep 4\n"));
    }

    void timeoutKillsTheProgramAndKeepsItsOutput()
    {
        QElapsedTimer clock;
        clock.start();
        // 6 s: its container is cold (--pool 0), and a cold interpreter's start-up, which the
        // timeout counts, has taken 4 s under the full suite's load. The program sleeps rather
        // than spins, so the wait costs no processor (tst_SandboxPolicy kills busy loops).
        const QJsonObject result = m_server->callTool(
            QStringLiteral("run_python_code"),
            {{QStringLiteral("code"),
              QStringLiteral("import time\nprint('started', flush=True)\ntime.sleep(600)")},
             {QStringLiteral("timeout_seconds"), 6}});
        QVERIFY2(clock.elapsed() < 20'000, "the timeout did not stop the program");
        QCOMPARE(structured(result).value(QLatin1String("timed_out")).toBool(), true);
        QCOMPARE(structured(result).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("started\n"));
        QVERIFY(isError(result));
        QVERIFY(text(result).contains(QLatin1String("timed out")));
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(m_server->pid()), 10'000),
                 QStringList());
    }

    void cancellationRemovesTheContainerAndSendsNoResponse()
    {
        const int id = m_server->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"), code(QStringLiteral("import time\ntime.sleep(60)"))}});
        QVERIFY(waitForContainer(m_server->pid()));
        m_server->sendNotification(QStringLiteral("notifications/cancelled"),
                                   {{QStringLiteral("requestId"), id},
                                    {QStringLiteral("reason"), QStringLiteral("test")}});
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(m_server->pid()), 15'000),
                 QStringList());
        QVERIFY2(!m_server->receivesResponseWithin(id, 2'000), "a cancelled call was answered");
        const auto pong = m_server->waitForResponse(m_server->sendRequest(QStringLiteral("ping")));
        QVERIFY(pong && pong->contains(QLatin1String("result")));
    }

    void badInputGetsClearErrorsAndTheServerKeepsServing()
    {
        const QJsonObject missingCode =
            m_server->callTool(QStringLiteral("run_python_code"), QJsonObject{});
        QVERIFY(isError(missingCode));
        QVERIFY(text(missingCode).contains(QLatin1String("\"code\"")));

        const QJsonObject badTimeout =
            m_server->callTool(QStringLiteral("run_python_code"),
                               {{QStringLiteral("code"), QStringLiteral("print(1)")},
                                {QStringLiteral("timeout_seconds"), QStringLiteral("soon")}});
        QVERIFY(isError(badTimeout));
        QVERIFY(text(badTimeout).contains(QLatin1String("timeout_seconds")));

        const int unknown =
            m_server->sendRequest(QStringLiteral("tools/call"),
                                  {{QStringLiteral("name"), QStringLiteral("run_cobol_code")},
                                   {QStringLiteral("arguments"), QJsonObject{}}});
        const auto unknownResponse = m_server->waitForResponse(unknown);
        QVERIFY(unknownResponse);
        QCOMPARE(unknownResponse->value(QLatin1String("error"))
                     .toObject()
                     .value(QLatin1String("code"))
                     .toInt(),
                 -32602);

        m_server->sendRaw("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
        const auto parseError = m_server->waitForMessage([](const QJsonObject& message) {
            return message.value(QLatin1String("id")).isNull() &&
                   message.value(QLatin1String("error")).toObject().value(QLatin1String("code")) ==
                       QJsonValue(-32700);
        });
        QVERIFY(parseError);
        const QJsonObject after = m_server->callTool(QStringLiteral("run_python_code"),
                                                     code(QStringLiteral("print('alive')")));
        QCOMPARE(structured(after).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("alive\n"));
    }

    void passThroughEnvironmentReachesOnlyTheNamedVariables()
    {
        const QString secret = QStringLiteral("s3cr3t-%1").arg(QCoreApplication::applicationPid());
        auto server =
            // --no-redact: the value itself comes back, proving it reached the sandbox
            // (tst_SecretsInSandboxes covers redaction).
            startServer({QStringLiteral("--no-redact"), QStringLiteral("--pass-through-env"),
                         QStringLiteral("CSM_TEST_SECRET")},
                        {{QStringLiteral("CSM_TEST_SECRET"), secret},
                         {QStringLiteral("CSM_TEST_OTHER"), QStringLiteral("not-passed")}});
        QVERIFY(server);
        const int id = server->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"),
              code(QStringLiteral("import os, time\nprint(os.environ.get('CSM_TEST_SECRET'))\n"
                                  "print(os.environ.get('CSM_TEST_OTHER'))\ntime.sleep(2)"))}});
        QVERIFY(waitForContainer(server->pid()));
        for (const QString& commandLine : allCommandLines())
            QVERIFY2(!commandLine.contains(secret), qPrintable(commandLine));
        const auto response = server->waitForResponse(id);
        QVERIFY(response);
        QCOMPARE(structured(response->value(QLatin1String("result")).toObject())
                     .value(QLatin1String("stdout"))
                     .toString(),
                 secret + QStringLiteral("\nNone\n"));
    }

    void customImagesReplaceOnlyTheirLanguage()
    {
        const QString customPython =
            TestEngine::localImage(QStringLiteral("csm-test-custom-python:latest"));
        const QString customJs =
            TestEngine::localImage(QStringLiteral("csm-test-custom-js:latest"));
        bool ok = false;
        TestEngine::run({QStringLiteral("tag"),
                         TestEngine::localImage(QStringLiteral("code-sandbox-python:latest")),
                         customPython},
                        &ok);
        QVERIFY(ok);
        TestEngine::run({QStringLiteral("tag"),
                         TestEngine::localImage(QStringLiteral("code-sandbox-js:latest")),
                         customJs},
                        &ok);
        QVERIFY(ok);
        auto cleanup = qScopeGuard([&] {
            TestEngine::run({QStringLiteral("rmi"), customPython, customJs});
        });

        // The flag for Python, the reference's environment variables for JavaScript.
        auto server =
            startServer({QStringLiteral("--python-image"), customPython},
                        {{QStringLiteral("CONTAINER_IMAGE"), customJs},
                         {QStringLiteral("CONTAINER_LANGUAGE"), QStringLiteral("javascript")}});
        QVERIFY(server);
        const QJsonArray tools =
            server->request(QStringLiteral("tools/list")).value(QLatin1String("tools")).toArray();
        QCOMPARE(tools.size(), 4); // then list_sessions and end_session
        QVERIFY(tools.at(0)
                    .toObject()
                    .value(QLatin1String("description"))
                    .toString()
                    .contains(customPython));
        QVERIFY(tools.at(1)
                    .toObject()
                    .value(QLatin1String("description"))
                    .toString()
                    .contains(customJs));

        const QJsonObject python = server->callTool(QStringLiteral("run_python_code"),
                                                    code(QStringLiteral("print('py')")));
        QCOMPARE(structured(python).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("py\n"));
        const QJsonObject js = server->callTool(QStringLiteral("run_js_code"),
                                                code(QStringLiteral("console.log('js')")));
        QCOMPARE(structured(js).value(QLatin1String("stdout")).toString(), QStringLiteral("js\n"));
    }

    void settingsSavedByTheAppApplyToTheNextRun()
    {
        QTemporaryDir data;
        auto server = startServer({QStringLiteral("--data-dir"), data.path()});
        QVERIFY(server);
        const auto description = [&server] {
            return callresult::toolDescription(server->request(QStringLiteral("tools/list")));
        };
        // A remote engine's tests run without a network (TestRemoteEngine.cpp).
        QVERIFY(description().contains(TestEngine::isRemote()
                                           ? QLatin1String("Network access: none")
                                           : QLatin1String("Network access: public hosts")));

        // What the desktop app's Settings page writes (tst_ServerSettings checks that it does).
        {
            QSettings file(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            file.setValue(QStringLiteral("server/timeout"), QStringLiteral("1"));
            file.setValue(QStringLiteral("server/egress"), QStringLiteral("none"));
        }
        QTRY_VERIFY_WITH_TIMEOUT(description().contains(QLatin1String("Network access: none")),
                                 5000);
        QVERIFY(description().contains(QLatin1String("a timeout of 1 s by default")));

        // Its own timeout: the new default's 1 s may not cover a cold interpreter's start-up.
        const QJsonObject interfaces = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import os; print(sorted(os.listdir('/sys/class/net')), "
                                "os.environ.get('HTTP_PROXY'))"),
                 60));
        // No proxy either: nothing at all.
        QCOMPARE(structured(interfaces).value(QLatin1String("stdout")).toString(),
                 QStringLiteral("['lo'] None\n"));
        QElapsedTimer clock;
        clock.start();
        const QJsonObject slow = server->callTool(
            QStringLiteral("run_python_code"), code(QStringLiteral("import time; time.sleep(20)")));
        QCOMPARE(structured(slow).value(QLatin1String("timed_out")).toBool(), true);
        // Far below the 20 s the program asks for, with room for a cold start under load.
        QVERIFY2(clock.elapsed() < 16'000, "the new default timeout did not apply");
    }

    void missingImageIsAClearErrorAndTheServerKeepsServing()
    {
        const QString missing =
            TestEngine::localImage(QStringLiteral("csm-test-no-such-image:latest"));
        auto server = startServer({QStringLiteral("--python-image"), missing});
        QVERIFY(server);
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"), code(QStringLiteral("print(1)")));
        QVERIFY(isError(result));
        QVERIFY2(text(result).contains(missing), qPrintable(text(result)));
        QVERIFY(text(result).contains(QLatin1String("build-images")));
        const QJsonObject js = server->callTool(QStringLiteral("run_js_code"),
                                                code(QStringLiteral("console.log('ok')")));
        QCOMPARE(structured(js).value(QLatin1String("stdout")).toString(), QStringLiteral("ok\n"));
    }

    void missingEngineIsAClearErrorAndTheServerKeepsServing()
    {
        auto server = startServer({QStringLiteral("--engine"), TestEngine::name()},
                                  {{QStringLiteral("PATH"), QStringLiteral("/nonexistent")}});
        QVERIFY(server);
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"), code(QStringLiteral("print(1)")));
        QVERIFY(isError(result));
        QVERIFY2(text(result).contains(QLatin1String("could not be started")),
                 qPrintable(text(result)));
        const auto pong = server->waitForResponse(server->sendRequest(QStringLiteral("ping")));
        QVERIFY(pong && pong->contains(QLatin1String("result")));
    }

    void unreachableDockerDaemonIsAClearError()
    {
        if (TestEngine::name() != QLatin1String("docker"))
            QSKIP("podman has no daemon to be down");
        auto server = startServer({}, {{QStringLiteral("DOCKER_HOST"),
                                        QStringLiteral("unix:///nonexistent/docker.sock")}});
        QVERIFY(server);
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"), code(QStringLiteral("print(1)")));
        QVERIFY(isError(result));
        QVERIFY2(text(result).contains(QLatin1String("daemon")), qPrintable(text(result)));
    }

    void stdinEofRemovesRunningContainersAndExits()
    {
        auto server = startServer();
        QVERIFY(server);
        server->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"), code(QStringLiteral("import time\ntime.sleep(120)"))}});
        const qint64 pid = server->pid();
        QVERIFY(waitForContainer(pid));
        server->closeStdin();
        QVERIFY(server->waitForExit(15'000));
        QCOMPARE(server->process().exitCode(), 0);
        QCOMPARE(TestEngine::containersWithLabel(pidLabel(pid)), QStringList());
    }

    // doctor says where the engine is: this machine, or (registered against a remote engine)
    // remote, with the address its CLI goes to and the milliseconds a call adds; and a sandbox
    // runs there under the policy (without a network where the engine is remote).
    void doctorSaysWhereTheEngineIs()
    {
        QTemporaryDir data;
        {
            QSettings file(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            file.setValue(QStringLiteral("server/engine"), TestEngine::name());
            if (TestEngine::isRemote())
                file.setValue(QStringLiteral("server/egress"), QStringLiteral("none"));
        }
        QProcess doctor;
        TestEngine::prepare(doctor, TestEngine::serverBinary(),
                            {QStringLiteral("doctor"), QStringLiteral("--json"),
                             QStringLiteral("--data-dir"), data.path()});
        doctor.start();
        QVERIFY(doctor.waitForFinished(120'000));
        const QByteArray out = doctor.readAllStandardOutput();
        QJsonObject location;
        QJsonObject sandbox;
        for (const QJsonValue& check :
             QJsonDocument::fromJson(out).object().value(QLatin1String("checks")).toArray()) {
            if (check[QLatin1String("check")].toString() == QLatin1String("engine location"))
                location = check.toObject();
            if (check[QLatin1String("check")].toString() == QLatin1String("sandbox"))
                sandbox = check.toObject();
        }
        QCOMPARE(location.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
        const QString where = location.value(QLatin1String("detail")).toString();
        if (TestEngine::isRemote()) {
            const QString address = qEnvironmentVariable(
                TestEngine::name() == QLatin1String("podman") ? "CONTAINER_HOST" : "DOCKER_HOST");
            QVERIFY2(where.startsWith(QStringLiteral("remote (%1)").arg(address)),
                     qPrintable(where));
        } else {
            QVERIFY2(where.startsWith(QLatin1String("this machine")), qPrintable(where));
        }
        // Which host users sandboxes run as: one for all, on every engine here.
        QVERIFY2(where.contains(TestEngine::name() == QLatin1String("docker")
                                    ? QLatin1String("every sandbox runs as host uid 65534")
                                    : QLatin1String("every sandbox runs as one host uid")),
                 qPrintable(where));
        // Local Podman has no daemon to time; every other engine is timed.
        if (TestEngine::isRemote() || TestEngine::name() == QLatin1String("docker"))
            QVERIFY2(where.contains(QLatin1String("ms per round trip")), qPrintable(where));
        else
            QVERIFY2(where.contains(QLatin1String("no daemon between")), qPrintable(where));
        QVERIFY2(sandbox.value(QLatin1String("status")).toString() == QLatin1String("ok"),
                 out.constData());
    }

    void sigtermRemovesRunningContainersAndExits()
    {
        auto server = startServer();
        QVERIFY(server);
        server->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_js_code")},
             {QStringLiteral("arguments"), code(QStringLiteral("setTimeout(() => {}, 120000)"))}});
        const qint64 pid = server->pid();
        QVERIFY(waitForContainer(pid));
        ::kill(static_cast<pid_t>(pid), SIGTERM);
        QVERIFY(server->waitForExit(15'000));
        QCOMPARE(TestEngine::containersWithLabel(pidLabel(pid)), QStringList());
    }

    // A remote engine's volume of the launcher, filled and checked by the servers before, is
    // used as it is by the next one, whose marker vouches for that very volume; a marker that
    // vouches for another making of it is not trusted, and the next server fills it again.
    void theCheckedFilesVolumeIsUsedAsItIsAndNoStaleMarkerIsTrusted()
    {
        if (!TestEngine::isRemote())
            QSKIP("a local engine's sandboxes bind-mount the launcher: there is no files volume");
        const auto inspect = [](const QString& name, const QString& format) {
            return QString::fromUtf8(
                       TestEngine::run({QStringLiteral("volume"), QStringLiteral("inspect"),
                                        QStringLiteral("--format"), format, name}))
                .trimmed();
        };
        const auto callOnANewServer = [this] {
            auto server = startServer({QStringLiteral("--verbose")});
            if (!server)
                return QString();
            const QJsonObject result = server->callTool(QStringLiteral("run_python_code"),
                                                        code(QStringLiteral("print(6*7)")));
            return text(result) == QLatin1String("42\n") ? server->standardError() : QString();
        };
        // The suite's server has filled and marked it once its first call was answered.
        QCOMPARE(text(m_server->callTool(QStringLiteral("run_python_code"),
                                         code(QStringLiteral("print(6*7)")))),
                 QStringLiteral("42\n"));
        QString log = callOnANewServer();
        QVERIFY2(log.contains(QLatin1String("found filled and checked in")), qPrintable(log));
        // The volume this build's servers use, as the server names it, and what its marker
        // vouches for against the id its maker gave it.
        const QString volume =
            QRegularExpression(QStringLiteral("in volume (code-sandbox-files-[0-9a-f]+) "))
                .match(log)
                .captured(1);
        QVERIFY2(!volume.isEmpty(), qPrintable(log));
        const QString marker = volume + QStringLiteral("-verified");
        const QString id =
            inspect(volume, QStringLiteral("{{index .Labels \"code-sandbox.volume-id\"}}"));
        const QString checksFormat =
            QStringLiteral("{{index .Labels \"code-sandbox.checks-volume\"}}");
        QVERIFY(!id.isEmpty());
        QCOMPARE(inspect(marker, checksFormat), id);

        // A marker of another making of the volume.
        TestEngine::run(
            {QStringLiteral("volume"), QStringLiteral("rm"), QStringLiteral("--force"), marker});
        TestEngine::run({QStringLiteral("volume"), QStringLiteral("create"),
                         QStringLiteral("--label"),
                         QStringLiteral("code-sandbox.checks-volume=an-earlier-volume"), marker});
        log = callOnANewServer();
        QVERIFY2(log.contains(QLatin1String("(filled in")), qPrintable(log));
        QVERIFY2(!log.contains(QLatin1String("found filled and checked")), qPrintable(log));
        QCOMPARE(inspect(marker, checksFormat), id);
    }
};

QTEST_GUILESS_MAIN(TestStdioServer)
#include "tst_StdioServer.moc"
