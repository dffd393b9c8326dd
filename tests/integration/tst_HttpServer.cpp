// The real code-sandbox-mcp binary serving Streamable HTTP (--transport http), driven over raw
// sockets against a real container engine (CSM_TEST_ENGINE=podman|docker): status codes, fields
// and framing as a client sees them on the wire, the checks and limits that protect the server,
// and the removal of a call's container when its session or its connection ends.
#include "BlockingSocket.h"
#include "CallResult.h"
#include "HttpTestServer.h"
#include "RawHttpClient.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

using namespace callresult;

using Request = RawHttpClient::Request;
using Response = RawHttpClient::Response;
using Event = RawHttpClient::Event;

namespace {

const QByteArray kAcceptBoth = "application/json, text/event-stream";
// How long a container may take to appear (a cold start under load) and to go once its call
// ends (the engine's removal).
constexpr int kContainerStartMs = 30'000;
constexpr int kContainerRemovalMs = 15'000;

QByteArray compact(const QJsonObject& message)
{
    return QJsonDocument(message).toJson(QJsonDocument::Compact);
}

QJsonObject rpcRequest(const QJsonValue& id, const QString& method, const QJsonObject& params = {})
{
    QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("id"), id},
                        {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        message.insert(QStringLiteral("params"), params);
    return message;
}

QJsonObject rpcNotification(const QString& method)
{
    return {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), method}};
}

QJsonObject initializeRequest()
{
    // Id 0, as real clients send it.
    return rpcRequest(0, QStringLiteral("initialize"),
                      {{QStringLiteral("protocolVersion"), QStringLiteral("2025-11-25")},
                       {QStringLiteral("capabilities"), QJsonObject{}},
                       {QStringLiteral("clientInfo"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("tst_HttpServer")},
                                    {QStringLiteral("version"), QStringLiteral("1")}}}});
}

QJsonObject pythonCall(const QJsonValue& id, const QString& program,
                       const QJsonValue& progressToken = QJsonValue::Undefined,
                       int timeoutSeconds = 0)
{
    QJsonObject params{{QStringLiteral("name"), QStringLiteral("run_python_code")},
                       {QStringLiteral("arguments"), code(program, timeoutSeconds)}};
    if (!progressToken.isUndefined())
        params.insert(QStringLiteral("_meta"),
                      QJsonObject{{QStringLiteral("progressToken"), progressToken}});
    return rpcRequest(id, QStringLiteral("tools/call"), params);
}

// A POST of one message to /mcp, as a conforming client sends it (with the server's token).
Request post(const HttpTestServer& server, const QByteArray& body, const QByteArray& sessionId = {})
{
    return server.postRequest(body, sessionId);
}

Request post(const HttpTestServer& server, const QJsonObject& message,
             const QByteArray& sessionId = {})
{
    return post(server, compact(message), sessionId);
}

Request ping(const HttpTestServer& server, const QByteArray& sessionId, int id = 7)
{
    return post(server, rpcRequest(id, QStringLiteral("ping")), sessionId);
}

Request streamRequest(const HttpTestServer& server, const QByteArray& sessionId)
{
    Request request;
    request.method = "GET";
    request.set("Host", server.hostHeader())
        .set("Authorization", server.authorization())
        .set("Accept", "text/event-stream");
    if (!sessionId.isEmpty())
        request.set("Mcp-Session-Id", sessionId);
    return request;
}

Request deleteRequest(const HttpTestServer& server, const QByteArray& sessionId)
{
    Request request;
    request.method = "DELETE";
    request.set("Host", server.hostHeader())
        .set("Authorization", server.authorization())
        .set("Mcp-Session-Id", sessionId);
    return request;
}

int errorCodeOf(const QJsonObject& message)
{
    return message.value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt();
}

QByteArray withPort(QByteArray text, quint16 port)
{
    return text.replace("PORT", QByteArray::number(port));
}

// A response, for failure messages: its status line, fields and the start of its body.
QString describe(const std::optional<Response>& response, const RawHttpClient& client)
{
    if (!response)
        return QStringLiteral("no response (%1)").arg(client.lastError());
    QString text =
        QStringLiteral("%1 %2\n").arg(response->status).arg(QString::fromLatin1(response->reason));
    for (const auto& [name, value] : response->fields)
        text += QString::fromLatin1(name + ": " + value) + QLatin1Char('\n');
    return text + QString::fromUtf8(response->body.left(500));
}

// A "Vm...:" field of /proc/PID/status in KiB (VmRSS: resident now; VmHWM: the most ever
// resident), or -1.
qint64 procStatusKiB(qint64 pid, const char* field)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray prefix = QByteArray(field) + ':';
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size()).trimmed().split(' ').constFirst().toLongLong();
    }
    return -1;
}

bool isVisibleAscii(const QByteArray& text)
{
    return std::all_of(text.cbegin(), text.cend(), [](char c) { return c >= 0x21 && c <= 0x7e; });
}

} // namespace

class TestHttpServer final : public QObject
{
    Q_OBJECT

private:
    static std::unique_ptr<HttpTestServer> startServer(const QStringList& arguments = {},
                                                       const QMap<QString, QString>& env = {})
    {
        auto server = std::make_unique<HttpTestServer>();
        if (!server->start(arguments, env))
            return nullptr;
        return server;
    }

    // SIGTERM: the server exits with 0 within 15 s and leaves no container behind. (Docker may
    // still be finishing a removal it started itself: a moment's grace.)
    static void expectCleanStop(HttpTestServer& server)
    {
        QVERIFY2(server.terminate(15'000), "the server did not exit within 15 s of SIGTERM");
        QCOMPARE(server.exitStatus(), QProcess::NormalExit);
        if (server.exitCode() != 0)
            qWarning("server log:\n%s", qPrintable(server.standardError().right(4000)));
        QCOMPARE(server.exitCode(), 0);
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(server.pid()), 5'000),
                 QStringList());
    }

    // Sends `request` over `client` and reads the whole response.
    static std::optional<Response> exchange(RawHttpClient& client, const Request& request,
                                            int timeoutMs = 30'000)
    {
        if (!client.send(request))
            return std::nullopt;
        return client.readResponse(timeoutMs, request.method == "HEAD");
    }

    // A ping in the session over `client` is answered 200 with an empty result.
    static bool pingWorks(RawHttpClient& client, const HttpTestServer& server,
                          const QByteArray& sessionId)
    {
        const auto response = exchange(client, ping(server, sessionId));
        const bool ok = response && response->status == 200 &&
                        response->json().value(QLatin1String("result")) == QJsonObject() &&
                        response->json().value(QLatin1String("id")) == QJsonValue(7);
        if (!ok)
            qWarning("ping: %s", qPrintable(describe(response, client)));
        return ok;
    }

    // A tools/call's stream to its end: the events before the response, and the response.
    struct CallStream
    {
        std::optional<Response> head;
        QList<QJsonObject> notifications;
        QJsonObject response;
        QList<QJsonObject> afterResponse; // nothing may follow the response
        bool ended = false;
    };

    static CallStream readCallStream(RawHttpClient& client, int timeoutMs)
    {
        CallStream stream;
        const QDeadlineTimer deadline(timeoutMs);
        stream.head = client.readHead(timeoutMs);
        if (!stream.head)
            return stream;
        const QList<Event> events =
            client.readEventsUntilEnd(static_cast<int>(deadline.remainingTime()));
        for (const Event& event : events) {
            const QJsonObject message = event.json();
            if (message.contains(QLatin1String("id")) && stream.response.isEmpty())
                stream.response = message;
            else if (stream.response.isEmpty())
                stream.notifications << message;
            else
                stream.afterResponse << message;
        }
        stream.ended = client.streamEnded();
        return stream;
    }

    // Polls until the server has a container (so the program really runs).
    static bool waitForContainer(qint64 serverPid)
    {
        QDeadlineTimer deadline(kContainerStartMs);
        while (!deadline.hasExpired()) {
            if (!TestEngine::containersWithLabel(pidLabel(serverPid)).isEmpty())
                return true;
            QTest::qWait(100);
        }
        return false;
    }

    // Sends the shared session a ping with one header field set to `value` (a null value
    // removes it) on a new connection. The answer, when it has `status` and the connection then
    // still serves a ping (one refused on its head closes: then a new connection does); else
    // nothing, and `problem` says what happened.
    std::optional<Response> pingWithHeader(const QByteArray& name, const QByteArray& value,
                                           int status, QString* problem)
    {
        RawHttpClient first(m_server->port());
        if (!first.connectToServer()) {
            *problem = QStringLiteral("cannot connect to the server");
            return std::nullopt;
        }
        Request request = ping(*m_server, m_session);
        request.set(name, value);
        const auto response = exchange(first, request);
        if (!response || response->status != status) {
            *problem = describe(response, first);
            return std::nullopt;
        }
        // Refused on its head (403 for Host or Origin), the request closes its connection.
        RawHttpClient next(m_server->port());
        const bool closes = response->header("connection") == "close";
        if ((status == 403) != closes || (closes && !next.connectToServer())) {
            *problem = QStringLiteral("Connection: %1 after %2")
                           .arg(QString::fromLatin1(response->header("connection")))
                           .arg(status);
            return std::nullopt;
        }
        RawHttpClient& client = closes ? next : first;
        if (!pingWorks(client, *m_server, m_session)) {
            *problem = QStringLiteral("the connection no longer serves a ping");
            return std::nullopt;
        }
        return response;
    }

    // One server for every test whose flags are the defaults, and one session in it.
    std::unique_ptr<HttpTestServer> m_server;
    QByteArray m_session;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")),
                 "the python sandbox image must be built (containers/build-images)");
        m_server = startServer();
        QVERIFY(m_server);
        QVERIFY2(m_server->url().startsWith(QLatin1String("http://127.0.0.1:")),
                 qPrintable(m_server->url()));
        QVERIFY(m_server->url().endsWith(QLatin1String("/mcp")));
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        m_session = m_server->openSession(client);
        QVERIFY(!m_session.isEmpty());
    }

    void cleanupTestCase()
    {
        QVERIFY(m_server);
        expectCleanStop(*m_server);
    }

    // 1. What a client does first, on one keep-alive connection.
    void initializeListAndCallOverOneConnection()
    {
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());

        const auto init = exchange(client, post(*m_server, initializeRequest()));
        QVERIFY2(init && init->status == 200, qPrintable(describe(init, client)));
        QCOMPARE(init->mediaType(), QByteArray("application/json"));
        QCOMPARE(init->header("content-length").toInt(), init->body.size());
        QCOMPARE(init->headerCount("mcp-session-id"), 1);
        const QByteArray sessionId = init->header("mcp-session-id");
        QVERIFY2(sessionId.size() >= 16 && isVisibleAscii(sessionId), sessionId.constData());
        QVERIFY(sessionId != m_session);
        QCOMPARE(init->json().value(QLatin1String("id")), QJsonValue(0));
        const QJsonObject result = init->json().value(QLatin1String("result")).toObject();
        QCOMPARE(result.value(QLatin1String("protocolVersion")).toString(),
                 QStringLiteral("2025-11-25"));
        QVERIFY(result.value(QLatin1String("capabilities"))
                    .toObject()
                    .contains(QLatin1String("tools")));
        QVERIFY(!init->json().contains(QLatin1String("error")));

        const auto initialized = exchange(
            client, post(*m_server, rpcNotification(QStringLiteral("notifications/initialized")),
                         sessionId));
        QVERIFY2(initialized && initialized->status == 202,
                 qPrintable(describe(initialized, client)));
        QCOMPARE(initialized->body, QByteArray());

        // As real clients send it: no params.
        const auto list = exchange(
            client, post(*m_server, rpcRequest(1, QStringLiteral("tools/list")), sessionId));
        QVERIFY2(list && list->status == 200, qPrintable(describe(list, client)));
        QCOMPARE(list->mediaType(), QByteArray("application/json"));
        QStringList names;
        const QJsonArray tools = list->json()
                                     .value(QLatin1String("result"))
                                     .toObject()
                                     .value(QLatin1String("tools"))
                                     .toArray();
        for (const QJsonValue& tool : tools)
            names << tool.toObject().value(QLatin1String("name")).toString();
        QCOMPARE(names,
                 QStringList({QStringLiteral("run_python_code"), QStringLiteral("run_js_code"),
                              QStringLiteral("list_sessions"), QStringLiteral("end_session")}));

        QVERIFY(
            client.send(post(*m_server, pythonCall(2, QStringLiteral("print(6*7)")), sessionId)));
        const CallStream call = readCallStream(client, 60'000);
        QVERIFY2(call.head && call.head->status == 200, qPrintable(describe(call.head, client)));
        QCOMPARE(call.head->mediaType(), QByteArray("text/event-stream"));
        QVERIFY(call.head->isChunked());
        QVERIFY2(call.ended, qPrintable(client.lastError()));
        QCOMPARE(call.notifications, QList<QJsonObject>()); // no progressToken: no progress
        QCOMPARE(call.afterResponse, QList<QJsonObject>());
        QCOMPARE(call.response.value(QLatin1String("id")), QJsonValue(2));
        const QJsonObject callResult = call.response.value(QLatin1String("result")).toObject();
        QCOMPARE(stdoutOf(callResult), QStringLiteral("42\n"));
        QCOMPARE(isError(callResult), false);

        // The stream's end left the connection ready for the next request.
        QVERIFY(pingWorks(client, *m_server, sessionId));
    }

    // A run's files are served to the client that made the run: another client of the same
    // server that holds the link (a shared transcript, a log) reads nothing, not even whether
    // the run exists.
    void aRunsFilesAreReadByTheClientThatMadeThemOnly()
    {
        RawHttpClient clientA(m_server->port());
        RawHttpClient clientB(m_server->port());
        QVERIFY(clientA.connectToServer());
        QVERIFY(clientB.connectToServer());
        const QByteArray sessionA = m_server->openSession(clientA);
        const QByteArray sessionB = m_server->openSession(clientB);
        QVERIFY(!sessionA.isEmpty() && !sessionB.isEmpty());
        QVERIFY(clientA.send(
            post(*m_server,
                 pythonCall(1, QStringLiteral("open('/sandbox/out/a.txt', 'w').write('of A')")),
                 sessionA)));
        const CallStream call = readCallStream(clientA, 60'000);
        const QJsonArray files = call.response.value(QLatin1String("result"))
                                     .toObject()
                                     .value(QLatin1String("structuredContent"))
                                     .toObject()
                                     .value(QLatin1String("files"))
                                     .toArray();
        QVERIFY2(files.size() == 1, QJsonDocument(call.response).toJson().constData());
        const QString uri = files.at(0).toObject().value(QLatin1String("uri")).toString();
        const auto read = [&](RawHttpClient& client, const QByteArray& session) {
            return exchange(client, post(*m_server,
                                         rpcRequest(2, QStringLiteral("resources/read"),
                                                    {{QStringLiteral("uri"), uri}}),
                                         session));
        };
        const auto byB = read(clientB, sessionB);
        QVERIFY2(byB && byB->status == 200, qPrintable(describe(byB, clientB)));
        QCOMPARE(byB->json()
                     .value(QLatin1String("error"))
                     .toObject()
                     .value(QLatin1String("code"))
                     .toInt(),
                 -32002);
        QVERIFY(!byB->body.contains("of A"));
        const auto byA = read(clientA, sessionA);
        QVERIFY2(byA && byA->status == 200, qPrintable(describe(byA, clientA)));
        QCOMPARE(byA->json()
                     .value(QLatin1String("result"))
                     .toObject()
                     .value(QLatin1String("contents"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QLatin1String("text"))
                     .toString(),
                 QStringLiteral("of A"));
    }

    // 1. A long call with a progressToken reports progress, with what it printed, before its
    // result.
    void progressArrivesBeforeTheResult()
    {
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        const QString program = QStringLiteral("import time\n"
                                               "for i in range(5):\n"
                                               "    print(f'step {i}', flush=True)\n"
                                               "    time.sleep(1)\n");
        QVERIFY(client.send(
            post(*m_server, pythonCall(3, program, QStringLiteral("progress-3")), m_session)));
        const CallStream call = readCallStream(client, 60'000);
        QVERIFY2(call.head && call.head->status == 200, qPrintable(describe(call.head, client)));
        QCOMPARE(call.head->mediaType(), QByteArray("text/event-stream"));
        QVERIFY2(call.ended, qPrintable(client.lastError()));

        QCOMPARE(call.response.value(QLatin1String("id")), QJsonValue(3));
        QCOMPARE(call.afterResponse, QList<QJsonObject>());
        QCOMPARE(stdoutOf(call.response.value(QLatin1String("result")).toObject()),
                 QStringLiteral("step 0\nstep 1\nstep 2\nstep 3\nstep 4\n"));

        QVERIFY2(call.notifications.size() >= 3,
                 qPrintable(QStringLiteral("%1 notifications").arg(call.notifications.size())));
        double lastProgress = -1;
        int lastStep = -1;
        QStringList steps;
        static const QRegularExpression stepLine(QStringLiteral("^step (\\d)$"));
        for (const QJsonObject& notification : call.notifications) {
            QCOMPARE(notification.value(QLatin1String("method")).toString(),
                     QStringLiteral("notifications/progress"));
            const QJsonObject params = notification.value(QLatin1String("params")).toObject();
            QCOMPARE(params.value(QLatin1String("progressToken")).toString(),
                     QStringLiteral("progress-3"));
            const double progress = params.value(QLatin1String("progress")).toDouble(-1);
            QVERIFY2(
                progress > lastProgress,
                qPrintable(QStringLiteral("progress %1 after %2").arg(progress).arg(lastProgress)));
            lastProgress = progress;
            const QString message = params.value(QLatin1String("message")).toString();
            const QRegularExpressionMatch match = stepLine.match(message);
            if (!match.hasMatch()) {
                QVERIFY2(message.startsWith(QLatin1String("Running for")), qPrintable(message));
                continue;
            }
            const int step = match.captured(1).toInt();
            QVERIFY2(step >= lastStep, qPrintable(message));
            lastStep = step;
            if (!steps.contains(message))
                steps << message;
        }
        // A line a second, looked at twice a second: most lines are reported.
        QVERIFY2(steps.size() >= 3, qPrintable(steps.join(QLatin1String(", "))));
    }

    // 2. Bodies that are not one JSON-RPC message; the connection and the server go on.
    void invalidBodiesAreRefused_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("errorCode");
        QTest::newRow("truncated JSON")
            << QByteArray(R"({"jsonrpc": "2.0", "id": 1, "method": )") << -32700;
        QTest::newRow("not JSON") << QByteArray("hello") << -32700;
        QTest::newRow("empty body") << QByteArray("") << -32700;
        QTest::newRow("batch") << QByteArray(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])")
                               << -32600;
        QTest::newRow("empty batch") << QByteArray("[]") << -32600;
        // Valid JSON, just not a message: an invalid request, not a parse error (the JSON-RPC
        // 2.0 specification's own example sends `1` and gets -32600).
        QTest::newRow("JSON number") << QByteArray("42") << -32600;
        QTest::newRow("JSON string") << QByteArray(R"("ping")") << -32600;
        QTest::newRow("JSON null") << QByteArray("null") << -32600;
        QTest::newRow("object, not JSON-RPC") << QByteArray(R"({"hello":"world"})") << -32600;
        QTest::newRow("JSON-RPC 1.0")
            << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"ping"})") << -32600;
        QTest::newRow("no jsonrpc member") << QByteArray(R"({"id":1,"method":"ping"})") << -32600;
        QTest::newRow("method not a string")
            << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":42})") << -32600;
        QTest::newRow("id an object")
            << QByteArray(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})") << -32600;
    }

    void invalidBodiesAreRefused()
    {
        QFETCH(QByteArray, body);
        QFETCH(int, errorCode);
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        const auto response = exchange(client, post(*m_server, body, m_session));
        QVERIFY2(response && response->status == 400, qPrintable(describe(response, client)));
        QCOMPARE(response->mediaType(), QByteArray("application/json"));
        const QJsonObject error = response->json();
        QCOMPARE(error.value(QLatin1String("jsonrpc")).toString(), QStringLiteral("2.0"));
        QVERIFY(error.value(QLatin1String("id")).isNull());
        QCOMPARE(errorCodeOf(error), errorCode);
        QVERIFY(!error.contains(QLatin1String("result")));
        // 11. The same connection, and the session, still serve.
        QVERIFY(pingWorks(client, *m_server, m_session));
    }

    // Notifications and the client's responses get 202 and no body.
    void notificationsAndClientResponsesAreAccepted_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::newRow("notifications/initialized")
            << compact(rpcNotification(QStringLiteral("notifications/initialized")));
        QTest::newRow("unknown notification")
            << compact(rpcNotification(QStringLiteral("notifications/whatever")));
        QTest::newRow("cancel of no running request")
            << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
                          R"("params":{"requestId":12345}})");
        QTest::newRow("client result") << QByteArray(R"({"jsonrpc":"2.0","id":5,"result":{}})");
        QTest::newRow("client error")
            << QByteArray(R"({"jsonrpc":"2.0","id":"s-1","error":{"code":-1,"message":"no"}})");
    }

    void notificationsAndClientResponsesAreAccepted()
    {
        QFETCH(QByteArray, body);
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        const auto response = exchange(client, post(*m_server, body, m_session));
        QVERIFY2(response && response->status == 202, qPrintable(describe(response, client)));
        QCOMPARE(response->body, QByteArray());
        QVERIFY(pingWorks(client, *m_server, m_session));
    }

    // 2. Only POST, GET and DELETE.
    void otherMethodsAreNotAllowed_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::newRow("PUT") << QByteArray("PUT");
        QTest::newRow("PATCH") << QByteArray("PATCH");
        QTest::newRow("HEAD") << QByteArray("HEAD");
        QTest::newRow("OPTIONS") << QByteArray("OPTIONS");
    }

    void otherMethodsAreNotAllowed()
    {
        QFETCH(QByteArray, method);
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        Request request = post(*m_server, rpcRequest(1, QStringLiteral("ping")), m_session);
        request.method = method;
        if (method == "HEAD")
            request.body = QByteArray();
        const auto response = exchange(client, request);
        QVERIFY2(response && response->status == 405, qPrintable(describe(response, client)));
        QCOMPARE(response->headerCount("allow"), 1);
        QStringList allowed = QString::fromLatin1(response->header("allow"))
                                  .remove(QLatin1Char(' '))
                                  .split(QLatin1Char(','));
        allowed.sort();
        QCOMPARE(allowed, QStringList({QStringLiteral("DELETE"), QStringLiteral("GET"),
                                       QStringLiteral("POST")}));
        if (method == "HEAD") {
            // A response to HEAD has no content (RFC 9110 9.3.2): content sent anyway is read
            // as the start of the next response on this connection.
            QVERIFY(client.send(ping(*m_server, m_session)));
            const auto next = client.readResponse(10'000);
            QVERIFY2(next && next->status == 200,
                     qPrintable(QStringLiteral("the response to HEAD carried content: ") +
                                describe(next, client)));
        }
        QVERIFY(pingWorks(client, *m_server, m_session));
    }

    // 2. One endpoint.
    void otherPathsAreNotFound_data()
    {
        QTest::addColumn<QByteArray>("target");
        QTest::newRow("/") << QByteArray("/");
        QTest::newRow("/other") << QByteArray("/other");
        QTest::newRow("/mcp/extra") << QByteArray("/mcp/extra");
        QTest::newRow("/MCP") << QByteArray("/MCP");
        QTest::newRow("/mcpx") << QByteArray("/mcpx");
    }

    void otherPathsAreNotFound()
    {
        QFETCH(QByteArray, target);
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        Request request = ping(*m_server, m_session);
        request.target = target;
        const auto response = exchange(client, request);
        QVERIFY2(response && response->status == 404, qPrintable(describe(response, client)));
        QVERIFY(pingWorks(client, *m_server, m_session));
    }

    // 2. Accept must list both media types.
    void acceptMustListJsonAndEventStream_data()
    {
        QTest::addColumn<QByteArray>("accept"); // null: no Accept field
        QTest::addColumn<int>("status");
        QTest::newRow("none") << QByteArray() << 406;
        QTest::newRow("only application/json") << QByteArray("application/json") << 406;
        QTest::newRow("only text/event-stream") << QByteArray("text/event-stream") << 406;
        QTest::newRow("text/html") << QByteArray("text/html") << 406;
        QTest::newRow("empty") << QByteArray("") << 406;
        QTest::newRow("both") << kAcceptBoth << 200;
        QTest::newRow("both, other order")
            << QByteArray("text/event-stream, application/json") << 200;
        QTest::newRow("both, with parameters")
            << QByteArray("application/json;q=0.9, text/event-stream;q=0.8") << 200;
    }

    void acceptMustListJsonAndEventStream()
    {
        QFETCH(QByteArray, accept);
        QFETCH(int, status);
        QString problem;
        const auto response = pingWithHeader("Accept", accept, status, &problem);
        QVERIFY2(response, qPrintable(problem));
        QCOMPARE(response->mediaType(), QByteArray("application/json"));
    }

    // 2. The body is JSON.
    void contentTypeMustBeJson_data()
    {
        QTest::addColumn<QByteArray>("contentType"); // null: no Content-Type field
        QTest::addColumn<int>("status");
        QTest::newRow("none") << QByteArray() << 415;
        QTest::newRow("text/plain") << QByteArray("text/plain") << 415;
        QTest::newRow("form") << QByteArray("application/x-www-form-urlencoded") << 415;
        QTest::newRow("text/event-stream") << QByteArray("text/event-stream") << 415;
        QTest::newRow("application/json") << QByteArray("application/json") << 200;
        QTest::newRow("with charset") << QByteArray("application/json; charset=utf-8") << 200;
        QTest::newRow("upper case") << QByteArray("Application/JSON") << 200;
    }

    void contentTypeMustBeJson()
    {
        QFETCH(QByteArray, contentType);
        QFETCH(int, status);
        QString problem;
        QVERIFY2(pingWithHeader("Content-Type", contentType, status, &problem),
                 qPrintable(problem));
    }

    // 2. Every message after initialize names its session.
    void sessionIdIsRequired_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QByteArray>("sessionId"); // null: no Mcp-Session-Id field
        QTest::addColumn<int>("status");
        const QByteArray pingBody = compact(rpcRequest(1, QStringLiteral("ping")));
        const QByteArray listBody = compact(rpcRequest(1, QStringLiteral("tools/list")));
        const QByteArray notification =
            compact(rpcNotification(QStringLiteral("notifications/initialized")));
        QTest::newRow("ping without") << pingBody << QByteArray() << 400;
        QTest::newRow("tools/list without") << listBody << QByteArray() << 400;
        QTest::newRow("notification without") << notification << QByteArray() << 400;
        QTest::newRow("empty") << pingBody << QByteArray("") << 400;
        QTest::newRow("unknown") << pingBody << QByteArray("0123456789abcdef0123456789abcdef")
                                 << 404;
        QTest::newRow("unknown, notification")
            << notification << QByteArray("0123456789abcdef0123456789abcdef") << 404;
    }

    void sessionIdIsRequired()
    {
        QFETCH(QByteArray, body);
        QFETCH(QByteArray, sessionId);
        QFETCH(int, status);
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        Request request = post(*m_server, body);
        request.set("Mcp-Session-Id", sessionId);
        const auto response = exchange(client, request);
        QVERIFY2(response && response->status == status, qPrintable(describe(response, client)));
        QVERIFY(!response->json().contains(QLatin1String("result")));
        QVERIFY(pingWorks(client, *m_server, m_session));
    }

    // 2. MCP-Protocol-Version: any supported one, or none (2025-03-26).
    void protocolVersionHeader_data()
    {
        QTest::addColumn<QByteArray>("version"); // null: no field
        QTest::addColumn<int>("status");
        QTest::newRow("none") << QByteArray() << 200;
        QTest::newRow("2025-11-25") << QByteArray("2025-11-25") << 200;
        QTest::newRow("2025-06-18") << QByteArray("2025-06-18") << 200;
        QTest::newRow("2025-03-26") << QByteArray("2025-03-26") << 200;
        QTest::newRow("2024-11-05") << QByteArray("2024-11-05") << 200;
        QTest::newRow("1999-01-01") << QByteArray("1999-01-01") << 400;
        QTest::newRow("not a version") << QByteArray("latest") << 400;
        QTest::newRow("empty") << QByteArray("") << 400;
    }

    void protocolVersionHeader()
    {
        QFETCH(QByteArray, version);
        QFETCH(int, status);
        QString problem;
        const auto response = pingWithHeader("MCP-Protocol-Version", version, status, &problem);
        QVERIFY2(response, qPrintable(problem));
        if (status == 200)
            QCOMPARE(response->json().value(QLatin1String("result")), QJsonValue(QJsonObject()));
    }

    // Some clients send the header on initialize itself.
    void initializeToleratesProtocolVersionHeader()
    {
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        const auto response = exchange(
            client, post(*m_server, initializeRequest()).set("MCP-Protocol-Version", "2025-11-25"));
        QVERIFY2(response && response->status == 200, qPrintable(describe(response, client)));
        QVERIFY(!response->header("mcp-session-id").isEmpty());
    }

    // 3. DNS rebinding protection: Host names this server.
    void hostIsChecked_data()
    {
        QTest::addColumn<QByteArrayList>("hosts"); // one Host field each; PORT is replaced
        QTest::addColumn<int>("status");
        QTest::newRow("evil.example.com") << QByteArrayList{"evil.example.com"} << 403;
        QTest::newRow("evil.example.com:PORT") << QByteArrayList{"evil.example.com:PORT"} << 403;
        QTest::newRow("127.0.0.1.evil.com") << QByteArrayList{"127.0.0.1.evil.com"} << 403;
        QTest::newRow("localhost.evil.com:PORT")
            << QByteArrayList{"localhost.evil.com:PORT"} << 403;
        QTest::newRow("two Host fields")
            << QByteArrayList{"127.0.0.1:PORT", "evil.example.com"} << 400;
        QTest::newRow("two equal Host fields")
            << QByteArrayList{"127.0.0.1:PORT", "127.0.0.1:PORT"} << 400;
        QTest::newRow("no Host (HTTP/1.1)") << QByteArrayList{} << 400;
        QTest::newRow("localhost:PORT") << QByteArrayList{"localhost:PORT"} << 200;
        QTest::newRow("127.0.0.1:PORT") << QByteArrayList{"127.0.0.1:PORT"} << 200;
        QTest::newRow("[::1]:PORT") << QByteArrayList{"[::1]:PORT"} << 200;
        QTest::newRow("localhost") << QByteArrayList{"localhost"} << 200;
        QTest::newRow("LOCALHOST:PORT") << QByteArrayList{"LOCALHOST:PORT"} << 200;
    }

    void hostIsChecked()
    {
        QFETCH(QByteArrayList, hosts);
        QFETCH(int, status);
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        Request request = ping(*m_server, m_session);
        request.set("Host", QByteArray());
        for (const QByteArray& host : std::as_const(hosts))
            request.add("Host", withPort(host, m_server->port()));
        const auto response = exchange(client, request);
        QVERIFY2(response && response->status == status, qPrintable(describe(response, client)));
        if (status == 200) {
            QCOMPARE(response->json().value(QLatin1String("result")), QJsonValue(QJsonObject()));
            QVERIFY(pingWorks(client, *m_server, m_session));
            return;
        }
        QVERIFY(response->json().contains(QLatin1String("error")));
        // Refused on its head: the connection closes (its body, if any, is never read).
        QCOMPARE(response->header("connection"), QByteArray("close"));
        QVERIFY(client.waitForServerClose(5'000));
        RawHttpClient next(m_server->port());
        QVERIFY(next.connectToServer());
        QVERIFY(pingWorks(next, *m_server, m_session));
    }

    // 3. Origin, when a browser sends one, is a loopback page.
    void originIsChecked_data()
    {
        QTest::addColumn<QByteArray>("origin"); // PORT is replaced
        QTest::addColumn<int>("status");
        QTest::newRow("http://evil.example.com") << QByteArray("http://evil.example.com") << 403;
        QTest::newRow("null") << QByteArray("null") << 403;
        QTest::newRow("http://localhost.evil.com")
            << QByteArray("http://localhost.evil.com") << 403;
        QTest::newRow("http://127.0.0.1.evil.com:PORT")
            << QByteArray("http://127.0.0.1.evil.com:PORT") << 403;
        QTest::newRow("file://") << QByteArray("file://") << 403;
        QTest::newRow("http://localhost:3000") << QByteArray("http://localhost:3000") << 200;
        QTest::newRow("http://127.0.0.1:PORT") << QByteArray("http://127.0.0.1:PORT") << 200;
        QTest::newRow("https://localhost") << QByteArray("https://localhost") << 200;
        QTest::newRow("http://[::1]:8080") << QByteArray("http://[::1]:8080") << 200;
    }

    void originIsChecked()
    {
        QFETCH(QByteArray, origin);
        QFETCH(int, status);
        QString problem;
        QVERIFY2(pingWithHeader("Origin", withPort(origin, m_server->port()), status, &problem),
                 qPrintable(problem));
    }

    // 3. --allowed-host and --allowed-origin admit exactly theirs, besides loopback.
    void allowedHostAndOriginAreAdmitted()
    {
        auto server = startServer(
            {QStringLiteral("--allowed-host"), QStringLiteral("mcp.example.test"),
             QStringLiteral("--allowed-origin"), QStringLiteral("http://app.example.test:3000")});
        QVERIFY(server);
        const QByteArray port = QByteArray::number(server->port());
        struct Row
        {
            const char* name;
            QByteArray host;
            QByteArray origin; // null: none
            int status;
        };
        const Row rows[] = {
            {"allowed host", "mcp.example.test:" + port, {}, 200},
            {"allowed host, no port", "mcp.example.test", {}, 200},
            {"allowed origin", server->hostHeader(), "http://app.example.test:3000", 200},
            {"both", "mcp.example.test:" + port, "http://app.example.test:3000", 200},
            {"loopback still", "localhost:" + port, "http://localhost:3000", 200},
            {"other host", "other.example.test:" + port, {}, 403},
            {"allowed host's subdomain", "evil.mcp.example.test", {}, 403},
            {"allowed origin, other port", server->hostHeader(), "http://app.example.test:3001",
             403},
            {"allowed origin, other scheme", server->hostHeader(), "https://app.example.test:3000",
             403},
            {"other origin", server->hostHeader(), "http://evil.example.com", 403},
        };
        RawHttpClient setup(server->port());
        QVERIFY(setup.connectToServer());
        const QByteArray session = server->openSession(setup);
        QVERIFY(!session.isEmpty());
        for (const Row& row : rows) {
            RawHttpClient client(server->port());
            QVERIFY(client.connectToServer());
            Request request = ping(*server, session);
            request.set("Host", row.host).set("Origin", row.origin);
            const auto response = exchange(client, request);
            QVERIFY2(response && response->status == row.status,
                     qPrintable(QLatin1String(row.name) + QLatin1String(": ") +
                                describe(response, client)));
        }
        expectCleanStop(*server);
    }

    // 4. A token always: the one kept in the data folder unless one is given; every request
    // must carry it, and the token itself is never logged.
    void everyRequestNeedsTheToken()
    {
        // m_server was given no token: it made one in its data folder, for its owner only.
        const QString tokenPath = QDir(m_server->dataDir()).filePath(QStringLiteral("http-token"));
        QVERIFY2(QFileInfo::exists(tokenPath), qPrintable(m_server->standardError()));
        QCOMPARE(QFileInfo(tokenPath).permissions() &
                     (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup |
                      QFileDevice::WriteOther),
                 QFileDevice::Permissions());
        const QByteArray token = m_server->token();
        QCOMPARE(token.size(), 64);
        struct Row
        {
            const char* name;
            QByteArray authorization; // null: none
            int status;
        };
        const Row rows[] = {
            {"no Authorization", {}, 401},
            {"wrong token", "Bearer wrong-token", 401},
            {"token with a suffix", "Bearer " + token + "x", 401},
            {"token without its last character", "Bearer " + token.chopped(1), 401},
            {"wrong scheme", "Basic " + token, 401},
            {"no scheme", token, 401},
            {"empty", "", 401},
            {"right token", "Bearer " + token, 200},
            {"scheme in lower case", "bearer " + token, 200},
        };
        for (const Row& row : rows) {
            RawHttpClient client(m_server->port());
            QVERIFY(client.connectToServer());
            Request request = post(*m_server, initializeRequest());
            request.set("Authorization", row.authorization);
            const auto response = exchange(client, request);
            const QString what =
                QLatin1String(row.name) + QLatin1String(": ") + describe(response, client);
            QVERIFY2(response && response->status == row.status, qPrintable(what));
            if (row.status == 401) {
                QVERIFY2(response->header("www-authenticate").startsWith("Bearer"),
                         qPrintable(what));
                QVERIFY2(response->header("mcp-session-id").isNull(), qPrintable(what));
                // Refused on its head: the connection is not read further.
                QCOMPARE(response->header("connection"), QByteArray("close"));
            }
        }

        // Not only initialize: every later request, GET and DELETE too.
        for (const Request& without :
             {ping(*m_server, m_session).set("Authorization", {}),
              streamRequest(*m_server, m_session).set("Authorization", {}),
              deleteRequest(*m_server, m_session).set("Authorization", "Bearer wrong")}) {
            RawHttpClient client(m_server->port());
            QVERIFY(client.connectToServer());
            const auto response = exchange(client, without);
            QVERIFY2(response && response->status == 401, qPrintable(describe(response, client)));
        }
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        QVERIFY(pingWorks(client, *m_server, m_session));

        const QString log = m_server->standardError();
        QVERIFY2(log.contains(QLatin1String("the token kept in ") + tokenPath), qPrintable(log));
        QVERIFY2(!log.contains(QString::fromLatin1(token)), "the server logged its token");
    }

    // 4. A token given by the environment replaces the data folder's, which is then not made.
    void tokenFromTheEnvironment()
    {
        const QByteArray token =
            "csm-test-" + QByteArray::number(QRandomGenerator::global()->generate64(), 16);
        auto server =
            startServer({QStringLiteral("--verbose")},
                        {{QStringLiteral("CODE_SANDBOX_AUTH_TOKEN"), QString::fromLatin1(token)}});
        QVERIFY(server);
        QVERIFY(!QFileInfo::exists(QDir(server->dataDir()).filePath(QStringLiteral("http-token"))));
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        const QByteArray session = server->openSession(client);
        QVERIFY(!session.isEmpty());
        RawHttpClient other(server->port());
        QVERIFY(other.connectToServer());
        const auto refused =
            exchange(other, ping(*server, session).set("Authorization", "Bearer " + token + "0"));
        QVERIFY2(refused && refused->status == 401, qPrintable(describe(refused, other)));
        const QString log = server->standardError();
        QVERIFY2(log.contains(QLatin1String("CODE_SANDBOX_AUTH_TOKEN")), qPrintable(log));
        QVERIFY2(log.contains(QLatin1String("session")), "the verbose log says nothing");
        QVERIFY2(!log.contains(QString::fromLatin1(token)), "the server logged its token");
        expectCleanStop(*server);
    }

    // 4. --no-auth: only with an explicit loopback --host, said loudly, and nothing is made.
    void noAuthOnAnExplicitLoopbackAddress()
    {
        auto server = startServer(
            {QStringLiteral("--no-auth"), QStringLiteral("--host"), QStringLiteral("127.0.0.1")});
        QVERIFY(server);
        QCOMPARE(server->token(), QByteArray());
        QVERIFY(!QFileInfo::exists(QDir(server->dataDir()).filePath(QStringLiteral("http-token"))));
        const QString log = server->standardError();
        QVERIFY2(log.contains(QLatin1String("warning: --no-auth")) &&
                     log.contains(QLatin1String("every account on this machine")),
                 qPrintable(log));
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        const QByteArray session = server->openSession(client);
        QVERIFY(!session.isEmpty());
        QVERIFY(pingWorks(client, *server, session));
        // Host and Origin are still checked.
        RawHttpClient rebound(server->port());
        QVERIFY(rebound.connectToServer());
        const auto forbidden =
            exchange(rebound, ping(*server, session).set("Host", "evil.example.com"));
        QVERIFY2(forbidden && forbidden->status == 403, qPrintable(describe(forbidden, rebound)));
        expectCleanStop(*server);
    }

    // 4. The one rule for where a server may listen: refused at once, with why, before any
    // container starts.
    void listenRuleRefusesAtStart_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("token"); // CODE_SANDBOX_AUTH_TOKEN
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        const QString host = QStringLiteral("--host");
        const QString any = QStringLiteral("0.0.0.0");
        QTest::newRow("0.0.0.0") << QStringList{host, any} << QString() << 2
                                 << QStringLiteral("--allow-remote");
        QTest::newRow("0.0.0.0, short token")
            << QStringList{host, any, QStringLiteral("--allow-remote")}
            << QStringLiteral("short-token") << 2 << QStringLiteral("at least 16 characters");
        QTest::newRow("--no-auth, default host")
            << QStringList{QStringLiteral("--no-auth")} << QString() << 2
            << QStringLiteral("explicit loopback address");
        QTest::newRow("--no-auth and a token")
            << QStringList{QStringLiteral("--no-auth"), host, QStringLiteral("127.0.0.1")}
            << QStringLiteral("0123456789abcdef") << 2 << QStringLiteral("exclude each other");
        QTest::newRow("token file others can read")
            << QStringList{QStringLiteral("--token-file-mode-0644")} << QString() << 1
            << QStringLiteral("chmod 600");
    }

    void listenRuleRefusesAtStart()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, token);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir data;
        if (arguments.removeAll(QStringLiteral("--token-file-mode-0644")) > 0) {
            QFile file(data.filePath(QStringLiteral("http-token")));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("0123456789abcdef0123456789abcdef\n");
            QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                        QFileDevice::ReadOther));
        }
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), data.path());
        environment.remove(QStringLiteral("CODE_SANDBOX_AUTH_TOKEN"));
        if (!token.isEmpty())
            environment.insert(QStringLiteral("CODE_SANDBOX_AUTH_TOKEN"), token);
        QProcess server;
        server.setProgram(QStringLiteral(CSM_SERVER_BINARY));
        server.setArguments(QStringList{QStringLiteral("--transport"), QStringLiteral("http"),
                                        QStringLiteral("--port"), QStringLiteral("0"),
                                        QStringLiteral("--engine"), TestEngine::name()} +
                            arguments);
        server.setProcessEnvironment(environment);
        QElapsedTimer clock;
        clock.start();
        server.start();
        QVERIFY(server.waitForFinished(15'000));
        const QString err = QString::fromUtf8(server.readAllStandardError());
        QCOMPARE(server.exitCode(), exitCode);
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY2(!err.contains(QLatin1String("serving MCP")), qPrintable(err));
        // Refused before the engine was even asked: no container, no wait.
        QVERIFY2(!err.contains(QLatin1String("engine")), qPrintable(err));
        QVERIFY2(clock.elapsed() < 5'000, qPrintable(QString::number(clock.elapsed())));
    }

    // 4. The server follows its token file: a new token there is the only one from then on.
    void aNewTokenInTheFileAppliesAtOnce()
    {
        auto server = startServer();
        QVERIFY(server);
        const QByteArray oldToken = server->token();
        QVERIFY(!oldToken.isEmpty());
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        const QByteArray session = server->openSession(client);
        QVERIFY(!session.isEmpty());

        const QByteArray newToken = QByteArray(64, 'e');
        const QString path = QDir(server->dataDir()).filePath(QStringLiteral("http-token"));
        QSaveFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        file.write(newToken + '\n');
        QVERIFY(file.commit());

        const auto pingWith = [&](const QByteArray& token) {
            RawHttpClient one(server->port());
            const auto response =
                one.connectToServer()
                    ? exchange(one, ping(*server, session).set("Authorization", "Bearer " + token))
                    : std::nullopt;
            return response ? response->status : 0;
        };
        QTRY_COMPARE_WITH_TIMEOUT(pingWith(newToken), 200, 10'000);
        QCOMPARE(pingWith(oldToken), 401);
        QVERIFY2(server->standardError().contains(QLatin1String("changed: clients must send")),
                 qPrintable(server->standardError()));
        QVERIFY(!server->standardError().contains(QString::fromLatin1(newToken)));
        expectCleanStop(*server);
    }

    // 4. Who may call is decided on the head: a request without the token is answered 401 at
    // once, before "100 Continue" and before a byte of its body is kept. Many such requests at
    // once (each a 15 MiB body, under the 16 MiB limit, sent anyway) leave the server's memory
    // as it was: it reads and drops what they send.
    void unauthenticatedBodiesAreNeverKept()
    {
        auto server = startServer();
        QVERIFY(server);
        constexpr qint64 MiB = 1024 * 1024;
        constexpr int kConnections = 16;
        constexpr qint64 kDeclared = 15 * MiB;
        constexpr qint64 kSent = 14 * MiB;
        const qint64 rssBefore = procStatusKiB(server->pid(), "VmRSS");
        const qint64 peakBefore = procStatusKiB(server->pid(), "VmHWM");
        QVERIFY(rssBefore > 0 && peakBefore > 0);

        Request head = post(*server, QByteArray());
        head.set("Authorization", {}).set("Content-Length", QByteArray::number(kDeclared));
        const QByteArray piece(256 * 1024, 'x');
        std::vector<std::unique_ptr<BlockingSocket>> sockets;
        QList<QByteArray> answers;
        QList<qint64> answeredMs;
        QElapsedTimer clock;
        for (int i = 0; i < kConnections; ++i) {
            auto socket = std::make_unique<BlockingSocket>();
            QVERIFY(socket->connectTo(server->port()));
            QVERIFY(socket->send(head.head()));
            clock.start();
            // The answer comes before any body byte was sent...
            answers << socket->receiveUntil("\r\n\r\n", 3'000);
            answeredMs << clock.elapsed();
            // ...and the body is sent anyway (until the server's end is gone, if it goes).
            for (qint64 sent = 0; sent < kSent && socket->send(piece, 5'000);
                 sent += piece.size()) {
            }
            sockets.push_back(std::move(socket));
        }
        // Every connection still open (or closed by the server): what is kept now is the cost.
        const qint64 rssAfter = procStatusKiB(server->pid(), "VmRSS");
        const qint64 peakAfter = procStatusKiB(server->pid(), "VmHWM");
        qInfo("server RSS %lld -> %lld KiB, peak %lld -> %lld KiB after %d refused %lld MiB bodies",
              rssBefore, rssAfter, peakBefore, peakAfter, kConnections, kSent / MiB);
        QVERIFY2(rssAfter - rssBefore < 32 * 1024,
                 qPrintable(QStringLiteral("RSS grew by %1 KiB").arg(rssAfter - rssBefore)));
        QVERIFY2(peakAfter - peakBefore < 32 * 1024,
                 qPrintable(QStringLiteral("peak RSS grew by %1 KiB").arg(peakAfter - peakBefore)));
        for (const qint64 ms : std::as_const(answeredMs))
            QVERIFY2(ms < 2'000, qPrintable(QStringLiteral("answered after %1 ms").arg(ms)));
        for (const QByteArray& answer : std::as_const(answers)) {
            QVERIFY2(answer.startsWith("HTTP/1.1 401 "), answer.left(200).constData());
            QVERIFY2(answer.contains("\r\nConnection: close\r\n"), answer.constData());
            QVERIFY2(!answer.contains("100 Continue"), answer.constData());
        }
        sockets.clear();

        // "Expect: 100-continue" without the token: 401 instead of 100 Continue.
        BlockingSocket expecting;
        QVERIFY(expecting.connectTo(server->port()));
        QVERIFY(expecting.send(head.set("Expect", "100-continue").head()));
        const QByteArray refused = expecting.receiveUntil("\r\n\r\n", 3'000);
        QVERIFY2(refused.startsWith("HTTP/1.1 401 "), refused.constData());
        // With the token: 100 Continue, then the body is read.
        BlockingSocket admitted;
        QVERIFY(admitted.connectTo(server->port()));
        const QByteArray body = compact(initializeRequest());
        Request withToken = post(*server, body);
        withToken.set("Expect", "100-continue");
        QVERIFY(admitted.send(withToken.head()));
        QVERIFY2(admitted.receiveUntil("\r\n\r\n", 3'000).startsWith("HTTP/1.1 100 Continue\r\n"),
                 admitted.received().constData());
        QVERIFY(admitted.send(body));
        QVERIFY2(admitted.receiveUntil("\"serverInfo\"", 10'000).contains("HTTP/1.1 200 OK"),
                 admitted.received().constData());

        // The server still serves.
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        QVERIFY(!server->openSession(client).isEmpty());
        expectCleanStop(*server);
    }

    // 4. What a client chose reaches the log escaped and short: a name with a line feed forges
    // no log line, and a refused request with a 60 KiB target costs one short line.
    void clientTextIsLoggedEscaped()
    {
        auto server = startServer();
        QVERIFY(server);
        const QString forged = QStringLiteral("code-sandbox-mcp error: FORGED LINE");
        QJsonObject initialize = initializeRequest();
        QJsonObject params = initialize.value(QLatin1String("params")).toObject();
        params.insert(
            QStringLiteral("clientInfo"),
            QJsonObject{{QStringLiteral("name"), QString(QStringLiteral("evil\n") + forged)},
                        {QStringLiteral("version"), QString(QStringLiteral("1\r\n") + forged)}});
        initialize.insert(QStringLiteral("params"), params);
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        const auto answered = exchange(client, post(*server, initialize));
        QVERIFY2(answered && answered->status == 200, qPrintable(describe(answered, client)));

        RawHttpClient refused(server->port());
        QVERIFY(refused.connectToServer());
        Request longTarget = post(*server, initializeRequest());
        longTarget.target = "/mcp?" + QByteArray(60 * 1024, 'q');
        longTarget.set("Authorization", {});
        const auto unauthorized = exchange(refused, longTarget);
        QVERIFY2(unauthorized && unauthorized->status == 401,
                 qPrintable(describe(unauthorized, refused)));

        QTRY_VERIFY(server->standardError().contains(QLatin1String("refused POST")));
        const QStringList lines = server->standardError().split(QLatin1Char('\n'));
        for (const QString& line : lines) {
            QVERIFY2(!line.startsWith(forged), qPrintable(line));
            QVERIFY2(line.size() < 1'000, qPrintable(line.left(300)));
        }
        QVERIFY2(server->standardError().contains(QLatin1String("evil\\x0a") + forged),
                 qPrintable(server->standardError()));
        QVERIFY2(server->standardError().contains(QLatin1String("1\\x0d\\x0a") + forged),
                 qPrintable(server->standardError()));
        expectCleanStop(*server);
    }

    // 5. An oversized body is refused as soon as its Content-Length is read.
    void oversizedBodyIsRefusedBeforeItArrives()
    {
        auto server = startServer({QStringLiteral("--max-request-size"), QStringLiteral("64k")});
        QVERIFY(server);

        // Only the head: the 413 must not wait for a body that never comes.
        RawHttpClient refused(server->port());
        QVERIFY(refused.connectToServer());
        Request tooLarge = post(*server, QByteArray());
        tooLarge.set("Content-Length", "100000");
        QVERIFY(refused.send(tooLarge.head()));
        const auto response = refused.readResponse(5'000);
        QVERIFY2(response && response->status == 413, qPrintable(describe(response, refused)));
        QCOMPARE(response->header("connection"), QByteArray("close"));
        QVERIFY2(refused.waitForServerClose(5'000), "the server kept the connection open");

        // Below and at the limit: a program padded with a comment runs.
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        const QByteArray session = server->openSession(client);
        QVERIFY(!session.isEmpty());
        for (const qsizetype size : {qsizetype(60 * 1024), qsizetype(64 * 1024)}) {
            const QString start = QStringLiteral("print('padded')\n# ");
            const qsizetype base = compact(pythonCall(4, start)).size();
            const QByteArray body =
                compact(pythonCall(4, start + QString(size - base, QLatin1Char('x'))));
            QCOMPARE(body.size(), size);
            QVERIFY(client.send(post(*server, body, session)));
            const CallStream call = readCallStream(client, 60'000);
            QVERIFY2(call.head && call.head->status == 200,
                     qPrintable(describe(call.head, client)));
            QCOMPARE(stdoutOf(call.response.value(QLatin1String("result")).toObject()),
                     QStringLiteral("padded\n"));
        }

        // One byte over the limit.
        RawHttpClient over(server->port());
        QVERIFY(over.connectToServer());
        Request oneOver = post(*server, QByteArray(), session);
        oneOver.set("Content-Length", QByteArray::number(64 * 1024 + 1));
        QVERIFY(over.send(oneOver.head()));
        const auto overResponse = over.readResponse(5'000);
        QVERIFY2(overResponse && overResponse->status == 413,
                 qPrintable(describe(overResponse, over)));
        QVERIFY(over.waitForServerClose(5'000));

        QVERIFY(pingWorks(client, *server, session));
        expectCleanStop(*server);
    }

    // 5. The default limit is 16 MiB.
    void defaultLimitRefusesSeventeenMebibytes()
    {
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        Request request = post(*m_server, QByteArray(), m_session);
        request.set("Content-Length", QByteArray::number(17 * 1024 * 1024));
        QVERIFY(client.send(request.head()));
        const auto response = client.readResponse(5'000);
        QVERIFY2(response && response->status == 413, qPrintable(describe(response, client)));
        QVERIFY2(client.waitForServerClose(5'000), "the server kept the connection open");
    }

    // 6. A client that sends half a request, or nothing, does not hold a connection; one that
    // waits for a long call is not cut off.
    void slowAndIdleConnectionsAreClosed()
    {
        auto server = startServer({QStringLiteral("--request-timeout"), QStringLiteral("2"),
                                   QStringLiteral("--idle-timeout"), QStringLiteral("2")});
        QVERIFY(server);
        QElapsedTimer clock;

        RawHttpClient halfSent(server->port());
        QVERIFY(halfSent.connectToServer());
        const QByteArray head = post(*server, QByteArray("{}")).head();
        clock.start();
        QVERIFY(halfSent.send(head.left(head.size() / 2)));
        const auto timedOut = halfSent.readResponse(8'000);
        const qint64 answeredMs = clock.elapsed();
        QVERIFY2(timedOut && timedOut->status == 408, qPrintable(describe(timedOut, halfSent)));
        QVERIFY2(answeredMs >= 1'500 && answeredMs <= 5'000,
                 qPrintable(QStringLiteral("408 after %1 ms").arg(answeredMs)));
        QVERIFY2(halfSent.waitForServerClose(3'000), "the connection stayed open after 408");

        RawHttpClient silent(server->port());
        QVERIFY(silent.connectToServer());
        clock.start();
        QVERIFY2(silent.waitForServerClose(8'000), "an idle connection stayed open");
        const qint64 idleMs = clock.elapsed();
        QVERIFY2(idleMs >= 1'500 && idleMs <= 5'000,
                 qPrintable(QStringLiteral("closed after %1 ms").arg(idleMs)));
        QCOMPARE(silent.unreadBytes(), QByteArray());

        // A long call is not a slow client: no timeout runs while a request is handled, nor on
        // an open GET stream.
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        const QByteArray session = server->openSession(client);
        QVERIFY(!session.isEmpty());
        RawHttpClient stream(server->port());
        QVERIFY(stream.connectToServer());
        QVERIFY(stream.send(streamRequest(*server, session)));
        const auto streamHead = stream.readHead(10'000);
        QVERIFY2(streamHead && streamHead->status == 200, qPrintable(describe(streamHead, stream)));
        QVERIFY(client.send(post(
            *server, pythonCall(5, QStringLiteral("import time\ntime.sleep(4)\nprint('done')")),
            session)));
        const CallStream call = readCallStream(client, 60'000);
        QVERIFY2(call.head && call.head->status == 200, qPrintable(describe(call.head, client)));
        QCOMPARE(stdoutOf(call.response.value(QLatin1String("result")).toObject()),
                 QStringLiteral("done\n"));
        QVERIFY2(stream.isConnected(), "the GET stream was closed as idle");

        // ... and once it is answered, the connection idles out like any other.
        clock.start();
        QVERIFY2(client.waitForServerClose(8'000), "an idle connection stayed open");
        QVERIFY2(clock.elapsed() >= 1'500 && clock.elapsed() <= 5'000,
                 qPrintable(QStringLiteral("closed after %1 ms").arg(clock.elapsed())));
        expectCleanStop(*server);
    }

    // 6. Keep-alive: several requests on one connection, one after another or sent together.
    void keepAliveAnswersEveryRequest_data()
    {
        QTest::addColumn<bool>("pipelined");
        QTest::newRow("one after another") << false;
        QTest::newRow("pipelined") << true;
    }

    void keepAliveAnswersEveryRequest()
    {
        QFETCH(bool, pipelined);
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        const QList<int> ids{11, 12, 13};
        if (pipelined) {
            QByteArray all;
            for (const int id : ids)
                all += ping(*m_server, m_session, id).bytes();
            QVERIFY(client.send(all));
        }
        for (const int id : ids) {
            if (!pipelined)
                QVERIFY(client.send(ping(*m_server, m_session, id)));
            const auto response = client.readResponse(10'000);
            QVERIFY2(response && response->status == 200, qPrintable(describe(response, client)));
            QCOMPARE(response->header("connection"), QByteArray("keep-alive"));
            QCOMPARE(response->json().value(QLatin1String("id")), QJsonValue(id));
        }
        QVERIFY(client.isConnected());
    }

    // 9. GET opens the session's one server-to-client stream.
    void getOpensOneStreamPerSession()
    {
        RawHttpClient setup(m_server->port());
        QVERIFY(setup.connectToServer());
        const QByteArray session = m_server->openSession(setup);
        QVERIFY(!session.isEmpty());

        auto stream = std::make_unique<RawHttpClient>(m_server->port());
        QVERIFY(stream->connectToServer());
        QVERIFY(stream->send(streamRequest(*m_server, session)));
        const auto head = stream->readHead(10'000);
        QVERIFY2(head && head->status == 200, qPrintable(describe(head, *stream)));
        QCOMPARE(head->mediaType(), QByteArray("text/event-stream"));
        QVERIFY(head->isChunked());

        RawHttpClient second(m_server->port());
        QVERIFY(second.connectToServer());
        const auto conflict = exchange(second, streamRequest(*m_server, session));
        QVERIFY2(conflict && conflict->status == 409, qPrintable(describe(conflict, second)));

        const auto noSession = exchange(second, streamRequest(*m_server, QByteArray()));
        QVERIFY2(noSession && noSession->status == 405, qPrintable(describe(noSession, second)));
        QVERIFY(noSession->header("allow").contains("POST"));

        const auto unknown =
            exchange(second, streamRequest(*m_server, "0123456789abcdef0123456789abcdef"));
        QVERIFY2(unknown && unknown->status == 404, qPrintable(describe(unknown, second)));

        // The stream open does not hold up requests.
        QVERIFY(pingWorks(second, *m_server, session));

        // Once its client closes it, the session may open another.
        stream->close();
        stream.reset();
        QDeadlineTimer deadline(10'000);
        std::optional<Response> reopened;
        auto again = std::make_unique<RawHttpClient>(m_server->port());
        while (!deadline.hasExpired()) {
            again = std::make_unique<RawHttpClient>(m_server->port());
            QVERIFY(again->connectToServer());
            QVERIFY(again->send(streamRequest(*m_server, session)));
            reopened = again->readHead(5'000);
            if (!reopened || reopened->status != 409)
                break;
            QTest::qWait(100);
        }
        QVERIFY2(reopened && reopened->status == 200, qPrintable(describe(reopened, *again)));
    }

    // 7. DELETE ends the session and its running call: the container goes, the call's stream
    // ends, and the session id is unknown from then on.
    void deleteEndsTheSessionAndItsCalls()
    {
        const qint64 pid = m_server->pid();
        // The containers of earlier calls may still be being removed.
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), kContainerRemovalMs),
                 QStringList());
        RawHttpClient setup(m_server->port());
        QVERIFY(setup.connectToServer());
        const QByteArray session = m_server->openSession(setup);
        QVERIFY(!session.isEmpty());

        RawHttpClient caller(m_server->port());
        QVERIFY(caller.connectToServer());
        QVERIFY(caller.send(post(
            *m_server, pythonCall(6, QStringLiteral("import time\ntime.sleep(60)")), session)));
        const auto head = caller.readHead(10'000);
        QVERIFY2(head && head->status == 200, qPrintable(describe(head, caller)));
        QVERIFY(waitForContainer(pid));

        const auto deleted = exchange(setup, deleteRequest(*m_server, session));
        QVERIFY2(deleted && deleted->status == 200, qPrintable(describe(deleted, setup)));

        const QList<Event> events = caller.readEventsUntilEnd(10'000);
        QVERIFY2(caller.streamEnded(), qPrintable(caller.lastError()));
        for (const Event& event : events)
            QVERIFY2(!event.json().contains(QLatin1String("result")), event.data.constData());
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), kContainerRemovalMs),
                 QStringList());

        const auto afterwards = exchange(setup, ping(*m_server, session));
        QVERIFY2(afterwards && afterwards->status == 404, qPrintable(describe(afterwards, setup)));
        const auto deletedAgain = exchange(setup, deleteRequest(*m_server, session));
        QVERIFY2(deletedAgain && deletedAgain->status == 404,
                 qPrintable(describe(deletedAgain, setup)));
        QVERIFY(pingWorks(setup, *m_server, m_session));
    }

    // 8. A client that goes away in the middle of a call: the call is cancelled and its
    // container removed; the session and the server go on.
    void clientDisconnectCancelsTheCall_data()
    {
        QTest::addColumn<bool>("reset");
        QTest::newRow("closed") << false;
        QTest::newRow("reset") << true;
    }

    void clientDisconnectCancelsTheCall()
    {
        QFETCH(bool, reset);
        const qint64 pid = m_server->pid();
        // The containers of earlier calls may still be being removed.
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), kContainerRemovalMs),
                 QStringList());
        RawHttpClient setup(m_server->port());
        QVERIFY(setup.connectToServer());
        const QByteArray session = m_server->openSession(setup);
        QVERIFY(!session.isEmpty());

        RawHttpClient caller(m_server->port());
        QVERIFY(caller.connectToServer());
        QVERIFY(caller.send(post(
            *m_server, pythonCall(8, QStringLiteral("import time\ntime.sleep(60)")), session)));
        const auto head = caller.readHead(10'000);
        QVERIFY2(head && head->status == 200, qPrintable(describe(head, caller)));
        QVERIFY(waitForContainer(pid));
        if (reset)
            caller.abort();
        else
            caller.close();
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), kContainerRemovalMs),
                 QStringList());

        // The session outlives the connection, and a new one runs code.
        QVERIFY(pingWorks(setup, *m_server, session));
        RawHttpClient next(m_server->port());
        QVERIFY(next.connectToServer());
        const QByteArray nextSession = m_server->openSession(next);
        QVERIFY(!nextSession.isEmpty());
        QVERIFY(next.send(
            post(*m_server, pythonCall(9, QStringLiteral("print('after')")), nextSession)));
        const CallStream call = readCallStream(next, 60'000);
        QCOMPARE(stdoutOf(call.response.value(QLatin1String("result")).toObject()),
                 QStringLiteral("after\n"));
    }

    // 10. Fifty clients, each its own connection and session, all running code at once.
    void fiftyConcurrentSessions()
    {
        constexpr int kClients = 50;
        const QDeadlineTimer deadline(180'000);
        const auto remainingMs = [&deadline] {
            return static_cast<int>(std::max<qint64>(deadline.remainingTime(), 1));
        };
        QElapsedTimer clock;
        clock.start();
        std::vector<std::unique_ptr<RawHttpClient>> clients;
        for (int i = 0; i < kClients; ++i) {
            clients.push_back(std::make_unique<RawHttpClient>(m_server->port()));
            QVERIFY(clients.back()->connectToServer());
            QVERIFY(clients.back()->send(post(*m_server, initializeRequest())));
        }
        QByteArrayList sessions;
        for (auto& client : clients) {
            const auto response = client->readResponse(remainingMs());
            QVERIFY2(response && response->status == 200, qPrintable(describe(response, *client)));
            sessions << response->header("mcp-session-id");
        }
        QCOMPARE(QSet<QByteArray>(sessions.cbegin(), sessions.cend()).size(), kClients);
        for (int i = 0; i < kClients; ++i) {
            QVERIFY(clients.at(i)->send(
                post(*m_server, rpcNotification(QStringLiteral("notifications/initialized")),
                     sessions.at(i))));
        }
        for (auto& client : clients) {
            const auto response = client->readResponse(remainingMs());
            QVERIFY2(response && response->status == 202, qPrintable(describe(response, *client)));
        }
        // The fifty pass the cap on running sandboxes (twice the cores: 4 here) a few at a time,
        // and a call's timeout counts from its arrival: on a loaded 2-core machine the last ones
        // waited beyond the default 30 s. Each asks for 120 s, which this test's deadline covers.
        for (int i = 0; i < kClients; ++i) {
            const QJsonObject call =
                pythonCall(100 + i, QStringLiteral("print(%1)").arg(i), QJsonValue::Undefined, 120);
            QVERIFY(clients.at(i)->send(post(*m_server, call, sessions.at(i))));
        }
        for (int i = 0; i < kClients; ++i) {
            const CallStream call = readCallStream(*clients.at(i), remainingMs());
            QVERIFY2(call.head && call.head->status == 200,
                     qPrintable(describe(call.head, *clients.at(i))));
            QCOMPARE(call.response.value(QLatin1String("id")), QJsonValue(100 + i));
            const QJsonObject result = call.response.value(QLatin1String("result")).toObject();
            QVERIFY2(stdoutOf(result) == QStringLiteral("%1\n").arg(i) && !isError(result),
                     describe(result).constData());
        }
        qInfo("%d sessions answered in %lld ms on %s", kClients,
              static_cast<long long>(clock.elapsed()), qPrintable(TestEngine::name()));
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(m_server->pid()),
                                                           kContainerRemovalMs),
                 QStringList());
        for (int i = 0; i < kClients; ++i) {
            const auto deleted = exchange(*clients.at(i), deleteRequest(*m_server, sessions.at(i)));
            QVERIFY2(deleted && deleted->status == 200,
                     qPrintable(describe(deleted, *clients.at(i))));
        }
    }

    // 10. --max-sessions: one more initialize is refused until a session ends.
    void sessionLimitRefusesInitialize()
    {
        auto server = startServer({QStringLiteral("--max-sessions"), QStringLiteral("3")});
        QVERIFY(server);
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        QByteArrayList sessions;
        for (int i = 0; i < 3; ++i) {
            sessions << server->openSession(client);
            QVERIFY(!sessions.constLast().isEmpty());
        }
        const auto refused = exchange(client, post(*server, initializeRequest()));
        QVERIFY2(refused && refused->status == 503, qPrintable(describe(refused, client)));
        QVERIFY(refused->header("mcp-session-id").isNull());
        // The open sessions are unaffected, and ending one makes room.
        QVERIFY(pingWorks(client, *server, sessions.at(0)));
        const auto deleted = exchange(client, deleteRequest(*server, sessions.at(0)));
        QVERIFY2(deleted && deleted->status == 200, qPrintable(describe(deleted, client)));
        QVERIFY(!server->openSession(client).isEmpty());
        expectCleanStop(*server);
    }

    // 10. --max-connections: one more connection is answered 503 and closed.
    void connectionLimitRefusesConnections()
    {
        auto server = startServer({QStringLiteral("--max-connections"), QStringLiteral("2")});
        QVERIFY(server);
        auto first = std::make_unique<RawHttpClient>(server->port());
        QVERIFY(first->connectToServer());
        const QByteArray session = server->openSession(*first);
        QVERIFY(!session.isEmpty());
        RawHttpClient second(server->port());
        QVERIFY(second.connectToServer());
        QVERIFY(pingWorks(second, *server, session)); // both are accepted and open now

        RawHttpClient third(server->port());
        QVERIFY(third.connectToServer());
        const auto refused = third.readResponse(5'000);
        QVERIFY2(refused && refused->status == 503, qPrintable(describe(refused, third)));
        QVERIFY2(third.waitForServerClose(5'000), "a refused connection stayed open");
        QVERIFY(pingWorks(second, *server, session));

        // Once one closes, a new connection is served.
        first->close();
        first.reset();
        QDeadlineTimer deadline(10'000);
        bool served = false;
        while (!served && !deadline.hasExpired()) {
            RawHttpClient next(server->port());
            QVERIFY(next.connectToServer());
            const auto response = exchange(next, ping(*server, session), 5'000);
            served = response && response->status == 200;
            if (!served)
                QTest::qWait(100);
        }
        QVERIFY2(served, "no connection was served after one closed");
        expectCleanStop(*server);
    }

    // --session-timeout: a session with nothing running ends; one with a running call does
    // not.
    void idleSessionExpires()
    {
        auto server = startServer({QStringLiteral("--session-timeout"), QStringLiteral("2")});
        QVERIFY(server);
        // Any request counts as activity, so the server's log tells when a session expired.
        const auto expiredInLog = [&server](const QByteArray& session) {
            const QStringList lines = server->standardError().split(QLatin1Char('\n'));
            return std::any_of(lines.cbegin(), lines.cend(), [&session](const QString& line) {
                return line.contains(QLatin1String(session)) &&
                       line.contains(QLatin1String("expired"));
            });
        };
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        const QByteArray idle = server->openSession(client);
        QVERIFY(!idle.isEmpty());
        const QByteArray busy = server->openSession(client);
        QVERIFY(!busy.isEmpty());
        QVERIFY(client.send(post(
            *server, pythonCall(11, QStringLiteral("import time\ntime.sleep(5)\nprint('kept')")),
            busy)));
        QTRY_VERIFY_WITH_TIMEOUT(expiredInLog(idle), 10'000);
        const CallStream call = readCallStream(client, 60'000);
        QCOMPARE(stdoutOf(call.response.value(QLatin1String("result")).toObject()),
                 QStringLiteral("kept\n"));
        // The busy one's clock starts again only now.
        QVERIFY(pingWorks(client, *server, busy));
        QVERIFY(!expiredInLog(busy));
        const auto expired = exchange(client, ping(*server, idle));
        QVERIFY2(expired && expired->status == 404, qPrintable(describe(expired, client)));
        expectCleanStop(*server);
    }

    // SIGTERM while a call runs and a GET stream is open: its container goes, the server exits
    // with 0.
    void sigtermEndsRunningCalls()
    {
        auto server = startServer();
        QVERIFY(server);
        RawHttpClient client(server->port());
        QVERIFY(client.connectToServer());
        const QByteArray session = server->openSession(client);
        QVERIFY(!session.isEmpty());
        RawHttpClient stream(server->port());
        QVERIFY(stream.connectToServer());
        QVERIFY(stream.send(streamRequest(*server, session)));
        QVERIFY(stream.readHead(10'000));
        QVERIFY(client.send(
            post(*server, pythonCall(12, QStringLiteral("import time\ntime.sleep(60)")), session)));
        QVERIFY(client.readHead(10'000));
        QVERIFY(waitForContainer(server->pid()));
        expectCleanStop(*server);
        QVERIFY(client.waitForServerClose(1'000));
        QVERIFY(stream.waitForServerClose(1'000));
    }

    // 11. After everything above, the shared server still runs code in a new session.
    void serverStillServesAfterEverything()
    {
        RawHttpClient client(m_server->port());
        QVERIFY(client.connectToServer());
        QVERIFY(pingWorks(client, *m_server, m_session));
        const QByteArray session = m_server->openSession(client);
        QVERIFY(!session.isEmpty());
        QVERIFY(client.send(
            post(*m_server, pythonCall(10, QStringLiteral("print('still here')")), session)));
        const CallStream call = readCallStream(client, 60'000);
        QCOMPARE(stdoutOf(call.response.value(QLatin1String("result")).toObject()),
                 QStringLiteral("still here\n"));
    }
};

QTEST_GUILESS_MAIN(TestHttpServer)
#include "tst_HttpServer.moc"
