#include "mcp/McpDispatcher.h"
#include "mcp/Tool.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QSignalSpy>
#include <QTest>

#include <memory>

using namespace csm;

namespace csmtest {

// A call that runs until the test says how it ends.
class FakeToolCall final : public ToolCall
{
    Q_OBJECT

public:
    enum class OnCancel
    {
        EmitCancelled, // cleans up at once
        Wait,          // cleans up when the test calls confirmCancelled()
        EmitFinished,  // had already finished: its result crosses the cancellation
    };

    FakeToolCall(QJsonObject arguments, OnCancel onCancel, QObject* parent)
        : ToolCall(parent)
        , m_arguments(std::move(arguments))
        , m_onCancel(onCancel)
    {}

    void cancel() override
    {
        ++m_cancelCount;
        switch (m_onCancel) {
        case OnCancel::EmitCancelled:
            Q_EMIT cancelled();
            break;
        case OnCancel::Wait:
            break;
        case OnCancel::EmitFinished:
            finish(QStringLiteral("finished anyway"));
            break;
        }
    }

    void finish(const QString& text)
    {
        Q_EMIT finished(
            QJsonObject{{QStringLiteral("content"),
                         QJsonArray{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")},
                                                {QStringLiteral("text"), text}}}},
                        {QStringLiteral("isError"), false}});
    }
    void confirmCancelled() { Q_EMIT cancelled(); }

    const QJsonObject& arguments() const { return m_arguments; }
    int cancelCount() const { return m_cancelCount; }

private:
    QJsonObject m_arguments;
    OnCancel m_onCancel;
    int m_cancelCount = 0;
};

class FakeTool final : public Tool
{
public:
    FakeTool(QString name, QStringList aliases)
        : m_name(std::move(name))
        , m_aliases(std::move(aliases))
    {}

    QString name() const override { return m_name; }
    QStringList aliases() const override { return m_aliases; }
    QJsonObject definition() const override
    {
        return {{QStringLiteral("name"), m_name},
                {QStringLiteral("description"), QStringLiteral("A tool for tests")},
                {QStringLiteral("inputSchema"),
                 QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}};
    }
    ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                    QObject* parent) override
    {
        auto* call = new FakeToolCall(arguments, onCancel, parent);
        calls.append(call);
        contexts.append(context);
        return call;
    }

    FakeToolCall::OnCancel onCancel = FakeToolCall::OnCancel::EmitCancelled;
    QList<QPointer<FakeToolCall>> calls;
    QList<CallContext> contexts;

private:
    QString m_name;
    QStringList m_aliases;
};

} // namespace csmtest

using csmtest::FakeTool;
using csmtest::FakeToolCall;

Q_DECLARE_METATYPE(csmtest::FakeToolCall::OnCancel)

namespace {

QJsonObject request(const QJsonValue& id, const QString& method, const QJsonObject& params = {})
{
    QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("id"), id},
                        {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        message.insert(QStringLiteral("params"), params);
    return message;
}

QJsonObject notification(const QString& method, const QJsonObject& params = {})
{
    return {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("method"), method},
            {QStringLiteral("params"), params}};
}

QJsonObject callParams(const QString& tool, const QJsonObject& arguments = {})
{
    return {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}};
}

QJsonObject cancelParams(const QJsonValue& requestId)
{
    return {{QStringLiteral("requestId"), requestId},
            {QStringLiteral("reason"), QStringLiteral("user pressed stop")}};
}

QByteArray compact(const QJsonValue& value)
{
    return QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
}

QJsonObject messageAt(const QSignalSpy& spy, qsizetype index)
{
    return spy.at(index).at(0).toJsonObject();
}

// Lets queued signals and deferred deletions run.
void settle()
{
    QCoreApplication::processEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QCoreApplication::processEvents();
}

} // namespace

class tst_McpDispatcher final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void initialize_data();
    void initialize();
    void initializeOmitsEmptyOptionalFields();
    void initializeRecordsClientInfo();
    void ping();
    void toolsList_data();
    void toolsList();
    void errors_data();
    void errors();
    void notificationsGetNoResponse_data();
    void notificationsGetNoResponse();
    void clientResponsesAreIgnored_data();
    void clientResponsesAreIgnored();
    void idsAreEchoedExactly_data();
    void idsAreEchoedExactly();
    void integerAndStringIdsAreDistinct();

    void toolsCall_data();
    void toolsCall();
    void callContext();
    void overlappingRequests();
    void cancelledNotification_data();
    void cancelledNotification();
    void cancelledIdCanBeReused();
    void cancelForAnotherIdIsIgnored_data();
    void cancelForAnotherIdIsIgnored();
    void duplicateIdOfRunningCall();
    void cancelAll();
    void cancelAllWhenIdle();
    void idleAfterLastCallFinishes();
    void finishedCallsAreDeleted();
    void reportsClientAndRunningCalls();
    void progressOnlyWithAToken_data();
    void progressOnlyWithAToken();

private:
    void handleText(const QByteArray& text) { m_dispatcher->handleMessage(text); }

    std::unique_ptr<ToolRegistry> m_registry;
    FakeTool* m_tool = nullptr;
    FakeTool* m_otherTool = nullptr;
    std::unique_ptr<McpDispatcher> m_dispatcher;
    std::unique_ptr<QSignalSpy> m_out;
    std::unique_ptr<QSignalSpy> m_idle;
};

void tst_McpDispatcher::init()
{
    m_registry = std::make_unique<ToolRegistry>();
    auto tool = std::make_unique<FakeTool>(QStringLiteral("fake_tool"),
                                           QStringList{QStringLiteral("fake_alias")});
    m_tool = tool.get();
    m_registry->add(std::move(tool));
    auto other = std::make_unique<FakeTool>(QStringLiteral("other_tool"), QStringList());
    m_otherTool = other.get();
    m_registry->add(std::move(other));
    m_dispatcher = std::make_unique<McpDispatcher>(
        *m_registry,
        ServerIdentity{QStringLiteral("code-sandbox"), QStringLiteral("Code Sandbox"),
                       QStringLiteral("1.2.3"), QStringLiteral("Be nice.")},
        QStringLiteral("http"), QStringLiteral("session-7"));
    m_out = std::make_unique<QSignalSpy>(m_dispatcher.get(), &McpDispatcher::outgoing);
    m_idle = std::make_unique<QSignalSpy>(m_dispatcher.get(), &McpDispatcher::idle);
}

void tst_McpDispatcher::cleanup()
{
    m_out.reset();
    m_idle.reset();
    m_dispatcher.reset(); // deletes the calls it still owns
    m_registry.reset();
    m_tool = nullptr;
    m_otherTool = nullptr;
}

void tst_McpDispatcher::initialize_data()
{
    QTest::addColumn<QJsonValue>("requested"); // undefined: no protocolVersion at all
    QTest::addColumn<QString>("expected");

    const QString latest = QStringLiteral("2025-11-25");
    QTest::newRow("2025-11-25") << QJsonValue(latest) << latest;
    QTest::newRow("2025-06-18") << QJsonValue(QStringLiteral("2025-06-18"))
                                << QStringLiteral("2025-06-18");
    QTest::newRow("2025-03-26") << QJsonValue(QStringLiteral("2025-03-26"))
                                << QStringLiteral("2025-03-26");
    QTest::newRow("2024-11-05") << QJsonValue(QStringLiteral("2024-11-05"))
                                << QStringLiteral("2024-11-05");
    QTest::newRow("unknown") << QJsonValue(QStringLiteral("2023-01-01")) << latest;
    QTest::newRow("missing") << QJsonValue(QJsonValue::Undefined) << latest;
    QTest::newRow("not a string") << QJsonValue(20251125) << latest;
}

void tst_McpDispatcher::initialize()
{
    QFETCH(QJsonValue, requested);
    QFETCH(QString, expected);

    QJsonObject params{{QStringLiteral("capabilities"), QJsonObject()},
                       {QStringLiteral("clientInfo"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                                    {QStringLiteral("version"), QStringLiteral("1")}}}};
    if (!requested.isUndefined())
        params.insert(QStringLiteral("protocolVersion"), requested);
    // Real clients use id 0 for initialize.
    m_dispatcher->handle(request(0, QStringLiteral("initialize"), params));

    QCOMPARE(m_out->size(), 1);
    const QJsonObject reply = messageAt(*m_out, 0);
    QCOMPARE(reply.value(QLatin1String("jsonrpc")).toString(), QStringLiteral("2.0"));
    QCOMPARE(compact(reply.value(QLatin1String("id"))), QByteArray("[0]"));
    QVERIFY(reply.value(QLatin1String("result")).isObject());
    QVERIFY2(!reply.contains(QLatin1String("error")),
             "a response carries result or error, not both");

    const QJsonObject result = reply.value(QLatin1String("result")).toObject();
    QCOMPARE(result.value(QLatin1String("protocolVersion")).toString(), expected);
    QCOMPARE(m_dispatcher->negotiatedProtocolVersion(), expected);

    const QJsonValue listChanged = result.value(QLatin1String("capabilities"))
                                       .toObject()
                                       .value(QLatin1String("tools"))
                                       .toObject()
                                       .value(QLatin1String("listChanged"));
    QVERIFY(listChanged.isBool());
    QCOMPARE(listChanged.toBool(), false);

    const QJsonObject serverInfo = result.value(QLatin1String("serverInfo")).toObject();
    QCOMPARE(serverInfo.value(QLatin1String("name")).toString(), QStringLiteral("code-sandbox"));
    QCOMPARE(serverInfo.value(QLatin1String("version")).toString(), QStringLiteral("1.2.3"));
    QCOMPARE(serverInfo.value(QLatin1String("title")).toString(), QStringLiteral("Code Sandbox"));
    QCOMPARE(result.value(QLatin1String("instructions")).toString(), QStringLiteral("Be nice."));
}

void tst_McpDispatcher::initializeOmitsEmptyOptionalFields()
{
    McpDispatcher dispatcher(*m_registry,
                             ServerIdentity{QStringLiteral("bare"), {}, QStringLiteral("0.1"), {}});
    QSignalSpy out(&dispatcher, &McpDispatcher::outgoing);
    dispatcher.handle(request(1, QStringLiteral("initialize"),
                              {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")}}));
    QCOMPARE(out.size(), 1);
    const QJsonObject result = messageAt(out, 0).value(QLatin1String("result")).toObject();
    QVERIFY(!result.contains(QLatin1String("instructions")));
    const QJsonObject serverInfo = result.value(QLatin1String("serverInfo")).toObject();
    QVERIFY(!serverInfo.contains(QLatin1String("title")));
    QCOMPARE(serverInfo.value(QLatin1String("name")).toString(), QStringLiteral("bare"));
    QCOMPARE(serverInfo.value(QLatin1String("version")).toString(), QStringLiteral("0.1"));
}

void tst_McpDispatcher::initializeRecordsClientInfo()
{
    const QJsonObject clientInfo{{QStringLiteral("name"), QStringLiteral("claude-code")},
                                 {QStringLiteral("version"), QStringLiteral("2.0.1")}};
    m_dispatcher->handle(request(QStringLiteral("init"), QStringLiteral("initialize"),
                                 {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                  {QStringLiteral("clientInfo"), clientInfo}}));
    QCOMPARE(m_dispatcher->clientInfo(), clientInfo);
}

void tst_McpDispatcher::ping()
{
    m_dispatcher->handle(request(QStringLiteral("p-1"), QStringLiteral("ping")));
    QCOMPARE(m_out->size(), 1);
    const QJsonObject reply = messageAt(*m_out, 0);
    QCOMPARE(reply.value(QLatin1String("id")).toString(), QStringLiteral("p-1"));
    QVERIFY(reply.value(QLatin1String("result")).isObject());
    QCOMPARE(reply.value(QLatin1String("result")).toObject(), QJsonObject());
    QVERIFY(!reply.contains(QLatin1String("error")));
}

void tst_McpDispatcher::toolsList_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("no params") << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})");
    QTest::newRow("empty params") << QByteArray(
        R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})");
    QTest::newRow("cursor and _meta")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"tools/list",)"
                      R"("params":{"cursor":"x","_meta":{"progressToken":7}}})");
}

void tst_McpDispatcher::toolsList()
{
    QFETCH(QByteArray, message);
    handleText(message);
    QCOMPARE(m_out->size(), 1);
    const QJsonObject reply = messageAt(*m_out, 0);
    QVERIFY(!reply.contains(QLatin1String("error")));
    const QJsonArray tools =
        reply.value(QLatin1String("result")).toObject().value(QLatin1String("tools")).toArray();
    QStringList names;
    for (const QJsonValue& tool : tools)
        names << tool.toObject().value(QLatin1String("name")).toString();
    // Each tool once, under its own name; aliases are never listed.
    QCOMPARE(names, (QStringList{QStringLiteral("fake_tool"), QStringLiteral("other_tool")}));
    QCOMPARE(tools.at(0).toObject(), m_tool->definition());
}

void tst_McpDispatcher::errors_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::addColumn<int>("code");
    QTest::addColumn<QByteArray>("id"); // compact [id] of the expected reply

    const QByteArray null("[null]");
    QTest::newRow("malformed JSON")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":)") << -32700 << null;
    QTest::newRow("not JSON") << QByteArray("hello") << -32700 << null;
    QTest::newRow("empty line") << QByteArray() << -32700 << null;
    QTest::newRow("trailing garbage")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"ping"} x)") << -32700 << null;
    QTest::newRow("batch") << QByteArray(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])") << -32600
                           << null;
    QTest::newRow("empty batch") << QByteArray("[]") << -32600 << null;
    QTest::newRow("missing jsonrpc")
        << QByteArray(R"({"id":1,"method":"ping"})") << -32600 << QByteArray("[1]");
    QTest::newRow("jsonrpc 1.0") << QByteArray(R"({"jsonrpc":"1.0","id":1,"method":"ping"})")
                                 << -32600 << QByteArray("[1]");
    QTest::newRow("jsonrpc as number")
        << QByteArray(R"({"jsonrpc":2.0,"id":1,"method":"ping"})") << -32600 << QByteArray("[1]");
    QTest::newRow("empty object") << QByteArray("{}") << -32600 << null;
    QTest::newRow("missing method")
        << QByteArray(R"({"jsonrpc":"2.0","id":4})") << -32600 << QByteArray("[4]");
    QTest::newRow("method not a string")
        << QByteArray(R"({"jsonrpc":"2.0","id":4,"method":42})") << -32600 << QByteArray("[4]");
    QTest::newRow("id is an object")
        << QByteArray(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})") << -32600 << null;
    QTest::newRow("id is a float")
        << QByteArray(R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})") << -32600 << null;
    QTest::newRow("id is an array")
        << QByteArray(R"({"jsonrpc":"2.0","id":[1],"method":"ping"})") << -32600 << null;
    QTest::newRow("id is a boolean")
        << QByteArray(R"({"jsonrpc":"2.0","id":true,"method":"ping"})") << -32600 << null;
    QTest::newRow("id is null") << QByteArray(R"({"jsonrpc":"2.0","id":null,"method":"ping"})")
                                << -32600 << null;
    QTest::newRow("unknown method")
        << QByteArray(R"({"jsonrpc":"2.0","id":7,"method":"resources/list"})") << -32601
        << QByteArray("[7]");
    QTest::newRow("unknown method with string id")
        << QByteArray(R"({"jsonrpc":"2.0","id":"x","method":"prompts/get","params":{}})") << -32601
        << QByteArray(R"(["x"])");
    QTest::newRow("params is an array")
        << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":[1]})") << -32602
        << QByteArray("[2]");
    QTest::newRow("params is a string")
        << QByteArray(R"({"jsonrpc":"2.0","id":2,"method":"tools/list","params":"x"})") << -32602
        << QByteArray("[2]");
    QTest::newRow("tools/call unknown tool")
        << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"tools/call",)"
                      R"("params":{"name":"rm_rf","arguments":{}}})")
        << -32602 << QByteArray("[3]");
    QTest::newRow("tools/call missing name")
        << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"arguments":{}}})")
        << -32602 << QByteArray("[3]");
    QTest::newRow("tools/call without params")
        << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"tools/call"})") << -32602
        << QByteArray("[3]");
    QTest::newRow("tools/call name not a string")
        << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5}})")
        << -32602 << QByteArray("[3]");
    QTest::newRow("tools/call arguments is an array")
        << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"tools/call",)"
                      R"("params":{"name":"fake_tool","arguments":[1,2]}})")
        << -32602 << QByteArray("[3]");
    QTest::newRow("tools/call arguments is a string")
        << QByteArray(R"({"jsonrpc":"2.0","id":3,"method":"tools/call",)"
                      R"("params":{"name":"fake_tool","arguments":"code"}})")
        << -32602 << QByteArray("[3]");
}

void tst_McpDispatcher::errors()
{
    QFETCH(QByteArray, message);
    QFETCH(int, code);
    QFETCH(QByteArray, id);

    handleText(message);
    settle();
    QCOMPARE(m_out->size(), 1);
    const QJsonObject reply = messageAt(*m_out, 0);
    QCOMPARE(reply.value(QLatin1String("jsonrpc")).toString(), QStringLiteral("2.0"));
    QVERIFY(reply.contains(QLatin1String("id")));
    QCOMPARE(compact(reply.value(QLatin1String("id"))), id);
    QVERIFY2(!reply.contains(QLatin1String("result")), "an error reply has no result");
    const QJsonObject error = reply.value(QLatin1String("error")).toObject();
    QCOMPARE(error.value(QLatin1String("code")).toInt(), code);
    QVERIFY(error.value(QLatin1String("code")).isDouble());
    QVERIFY(!error.value(QLatin1String("message")).toString().isEmpty());
    // Nothing was run.
    QVERIFY(m_tool->calls.isEmpty());
    QCOMPARE(m_dispatcher->runningCallCount(), 0);
}

void tst_McpDispatcher::notificationsGetNoResponse_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("initialized") << QByteArray(
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    QTest::newRow("cancelled for an unknown request")
        << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
                      R"("params":{"requestId":99}})");
    QTest::newRow("cancelled without params")
        << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/cancelled"})");
    QTest::newRow("unknown notification")
        << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})");
    QTest::newRow("notification with array params")
        << QByteArray(R"({"jsonrpc":"2.0","method":"notifications/initialized","params":[]})");
    QTest::newRow("ping without id") << QByteArray(R"({"jsonrpc":"2.0","method":"ping"})");
    QTest::newRow("tools/call without id")
        << QByteArray(R"({"jsonrpc":"2.0","method":"tools/call",)"
                      R"("params":{"name":"fake_tool","arguments":{}}})");
}

void tst_McpDispatcher::notificationsGetNoResponse()
{
    QFETCH(QByteArray, message);
    handleText(message);
    settle();
    QCOMPARE(m_out->size(), 0);
    // A notification never starts work that nobody could receive the result of.
    QVERIFY(m_tool->calls.isEmpty());
}

void tst_McpDispatcher::clientResponsesAreIgnored_data()
{
    QTest::addColumn<QByteArray>("message");
    QTest::newRow("result") << QByteArray(R"({"jsonrpc":"2.0","id":1,"result":{}})");
    QTest::newRow("result null") << QByteArray(R"({"jsonrpc":"2.0","id":"s-1","result":null})");
    QTest::newRow("error") << QByteArray(
        R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}})");
    QTest::newRow("error with null id")
        << QByteArray(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}})");
}

void tst_McpDispatcher::clientResponsesAreIgnored()
{
    QFETCH(QByteArray, message);
    handleText(message);
    settle();
    QCOMPARE(m_out->size(), 0);
}

void tst_McpDispatcher::idsAreEchoedExactly_data()
{
    QTest::addColumn<QByteArray>("idJson");

    QTest::newRow("0") << QByteArray("0");
    QTest::newRow("1") << QByteArray("1");
    QTest::newRow("negative") << QByteArray("-17");
    QTest::newRow("large") << QByteArray("1099511627776");
    QTest::newRow("2^53 + 1") << QByteArray("9007199254740993");
    QTest::newRow("string") << QByteArray(R"("abc-123")");
    QTest::newRow("numeric string") << QByteArray(R"("0")");
    QTest::newRow("empty string") << QByteArray(R"("")");
    QTest::newRow("unicode string") << QByteArray("\"\xc3\xa9\xe2\x82\xac\"");
    QTest::newRow("uuid") << QByteArray(R"("5f0c7c2e-4b7a-4d0e-9b8f-3f1d2a6c9e01")");
}

void tst_McpDispatcher::idsAreEchoedExactly()
{
    QFETCH(QByteArray, idJson);
    const QByteArray expected = '[' + idJson + ']';

    // As bytes from a transport...
    handleText(R"({"jsonrpc":"2.0","id":)" + idJson + R"(,"method":"ping"})");
    // ...and as an object, through a tool call that finishes later.
    const QJsonValue id = QJsonDocument::fromJson(expected).array().first();
    m_dispatcher->handle(
        request(id, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    QCOMPARE(m_out->size(), 1);
    QCOMPARE(m_tool->calls.size(), 1);
    m_tool->calls.first()->finish(QStringLiteral("done"));
    QCOMPARE(m_out->size(), 2);

    for (qsizetype i = 0; i < m_out->size(); ++i) {
        const QJsonObject reply = messageAt(*m_out, i);
        QVERIFY2(!reply.contains(QLatin1String("error")),
                 QJsonDocument(reply).toJson(QJsonDocument::Compact).constData());
        QCOMPARE(compact(reply.value(QLatin1String("id"))), expected);
        QCOMPARE(reply.value(QLatin1String("id")).type(), id.type());
    }
}

void tst_McpDispatcher::integerAndStringIdsAreDistinct()
{
    // 1 and "1" are different requests; both may be pending at once.
    m_dispatcher->handle(
        request(1, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    m_dispatcher->handle(request(QStringLiteral("1"), QStringLiteral("tools/call"),
                                 callParams(QStringLiteral("fake_tool"))));
    QCOMPARE(m_out->size(), 0);
    QCOMPARE(m_tool->calls.size(), 2);
    m_tool->calls.at(1)->finish(QStringLiteral("string"));
    m_tool->calls.at(0)->finish(QStringLiteral("integer"));
    QCOMPARE(m_out->size(), 2);
    QCOMPARE(compact(messageAt(*m_out, 0).value(QLatin1String("id"))), QByteArray(R"(["1"])"));
    QCOMPARE(compact(messageAt(*m_out, 1).value(QLatin1String("id"))), QByteArray("[1]"));
}

void tst_McpDispatcher::toolsCall_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QJsonValue>("arguments"); // undefined: left out
    QTest::addColumn<QJsonObject>("expectedArguments");

    const QJsonObject arguments{{QStringLiteral("code"), QStringLiteral("print(1)")},
                                {QStringLiteral("timeout_seconds"), 5}};
    QTest::newRow("by name") << QStringLiteral("fake_tool") << QJsonValue(arguments) << arguments;
    QTest::newRow("by alias") << QStringLiteral("fake_alias") << QJsonValue(arguments) << arguments;
    QTest::newRow("arguments left out")
        << QStringLiteral("fake_tool") << QJsonValue(QJsonValue::Undefined) << QJsonObject();
    QTest::newRow("arguments null")
        << QStringLiteral("fake_tool") << QJsonValue(QJsonValue::Null) << QJsonObject();
}

void tst_McpDispatcher::toolsCall()
{
    QFETCH(QString, name);
    QFETCH(QJsonValue, arguments);
    QFETCH(QJsonObject, expectedArguments);

    QJsonObject params{{QStringLiteral("name"), name}};
    if (!arguments.isUndefined())
        params.insert(QStringLiteral("arguments"), arguments);
    m_dispatcher->handle(request(11, QStringLiteral("tools/call"), params));

    QCOMPARE(m_tool->calls.size(), 1);
    QVERIFY(m_otherTool->calls.isEmpty());
    QCOMPARE(m_tool->calls.first()->arguments(), expectedArguments);
    QCOMPARE(m_dispatcher->runningCallCount(), 1);
    QCOMPARE(m_out->size(), 0); // answered when the call finishes, not before

    m_tool->calls.first()->finish(QStringLiteral("hello"));
    QCOMPARE(m_out->size(), 1);
    const QJsonObject reply = messageAt(*m_out, 0);
    QCOMPARE(compact(reply.value(QLatin1String("id"))), QByteArray("[11]"));
    QVERIFY(!reply.contains(QLatin1String("error")));
    const QJsonObject result = reply.value(QLatin1String("result")).toObject();
    QCOMPARE(result.value(QLatin1String("content"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QLatin1String("text")),
             QJsonValue(QStringLiteral("hello")));
    QCOMPARE(m_dispatcher->runningCallCount(), 0);
}

void tst_McpDispatcher::callContext()
{
    // Before initialize, the client is unknown: the context says so with empty names.
    m_dispatcher->handle(
        request(1, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_alias"))));
    m_dispatcher->handle(
        request(2, QStringLiteral("initialize"),
                {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                 {QStringLiteral("clientInfo"),
                  QJsonObject{{QStringLiteral("name"), QStringLiteral("claude-code")},
                              {QStringLiteral("version"), QStringLiteral("2.0.1")}}}}));
    m_dispatcher->handle(
        request(3, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_alias"))));

    QCOMPARE(m_tool->contexts.size(), 2);
    const CallContext before = m_tool->contexts.at(0);
    QCOMPARE(before.transport, QStringLiteral("http"));
    QCOMPARE(before.sessionId, QStringLiteral("session-7"));
    QCOMPARE(before.clientName, QString());
    QCOMPARE(before.clientVersion, QString());
    QCOMPARE(before.tool, QStringLiteral("fake_tool")); // the tool's name, not the alias
    const CallContext after = m_tool->contexts.at(1);
    QCOMPARE(after.transport, QStringLiteral("http"));
    QCOMPARE(after.sessionId, QStringLiteral("session-7"));
    QCOMPARE(after.clientName, QStringLiteral("claude-code"));
    QCOMPARE(after.clientVersion, QStringLiteral("2.0.1"));
    QCOMPARE(after.tool, QStringLiteral("fake_tool"));
}

void tst_McpDispatcher::overlappingRequests()
{
    m_dispatcher->handle(request(
        1, QStringLiteral("tools/call"),
        callParams(QStringLiteral("fake_tool"), {{QStringLiteral("n"), QStringLiteral("slow")}})));
    m_dispatcher->handle(request(
        2, QStringLiteral("tools/call"),
        callParams(QStringLiteral("other_tool"), {{QStringLiteral("n"), QStringLiteral("fast")}})));
    QCOMPARE(m_dispatcher->runningCallCount(), 2);
    QCOMPARE(m_out->size(), 0);

    // A ping is not held up by the running calls.
    m_dispatcher->handle(request(3, QStringLiteral("ping")));
    QCOMPARE(m_out->size(), 1);
    QCOMPARE(compact(messageAt(*m_out, 0).value(QLatin1String("id"))), QByteArray("[3]"));
    m_dispatcher->handle(request(4, QStringLiteral("tools/list")));
    QCOMPARE(m_out->size(), 2);
    QCOMPARE(compact(messageAt(*m_out, 1).value(QLatin1String("id"))), QByteArray("[4]"));

    // The second call finishes first; each response goes to its own request.
    m_otherTool->calls.first()->finish(QStringLiteral("fast result"));
    QCOMPARE(m_out->size(), 3);
    m_tool->calls.first()->finish(QStringLiteral("slow result"));
    QCOMPARE(m_out->size(), 4);

    const auto textOf = [](const QJsonObject& reply) {
        return reply.value(QLatin1String("result"))
            .toObject()
            .value(QLatin1String("content"))
            .toArray()
            .first()
            .toObject()
            .value(QLatin1String("text"))
            .toString();
    };
    QCOMPARE(compact(messageAt(*m_out, 2).value(QLatin1String("id"))), QByteArray("[2]"));
    QCOMPARE(textOf(messageAt(*m_out, 2)), QStringLiteral("fast result"));
    QCOMPARE(compact(messageAt(*m_out, 3).value(QLatin1String("id"))), QByteArray("[1]"));
    QCOMPARE(textOf(messageAt(*m_out, 3)), QStringLiteral("slow result"));
    QCOMPARE(m_dispatcher->runningCallCount(), 0);
}

void tst_McpDispatcher::cancelledNotification_data()
{
    QTest::addColumn<QJsonValue>("id");
    QTest::addColumn<FakeToolCall::OnCancel>("onCancel");

    QTest::newRow("integer id, cleans up at once")
        << QJsonValue(5) << FakeToolCall::OnCancel::EmitCancelled;
    QTest::newRow("string id, cleans up at once")
        << QJsonValue(QStringLiteral("req-5")) << FakeToolCall::OnCancel::EmitCancelled;
    QTest::newRow("id 0, cleans up later") << QJsonValue(0) << FakeToolCall::OnCancel::Wait;
    QTest::newRow("result crosses the cancellation")
        << QJsonValue(6) << FakeToolCall::OnCancel::EmitFinished;
}

void tst_McpDispatcher::cancelledNotification()
{
    QFETCH(QJsonValue, id);
    QFETCH(FakeToolCall::OnCancel, onCancel);
    m_tool->onCancel = onCancel;

    m_dispatcher->handle(
        request(id, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    QCOMPARE(m_tool->calls.size(), 1);
    QPointer<FakeToolCall> call = m_tool->calls.first();

    handleText(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" +
               compact(id).mid(1).chopped(1) + R"(,"reason":"user pressed stop"}})");
    QVERIFY(call);
    QCOMPARE(call->cancelCount(), 1);

    if (onCancel == FakeToolCall::OnCancel::Wait) {
        QCOMPARE(m_dispatcher->runningCallCount(), 1); // still cleaning up
        QCOMPARE(m_idle->size(), 0);
        call->finish(QStringLiteral("late")); // a result arriving now is not sent either
        QCOMPARE(m_dispatcher->runningCallCount(), 0);
    }
    QCOMPARE(m_dispatcher->runningCallCount(), 0);
    QCOMPARE(m_idle->size(), 1);
    settle();
    // No response at all for a cancelled request: not a result, not an error.
    QCOMPARE(m_out->size(), 0);
    QVERIFY(call.isNull()); // and the call was cleaned up
}

void tst_McpDispatcher::cancelledIdCanBeReused()
{
    m_dispatcher->handle(
        request(8, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    m_dispatcher->handle(notification(QStringLiteral("notifications/cancelled"), cancelParams(8)));
    QCOMPARE(m_tool->calls.size(), 1);

    m_dispatcher->handle(
        request(8, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    QCOMPARE(m_tool->calls.size(), 2);
    QCOMPARE(m_out->size(), 0);
    m_tool->calls.at(1)->finish(QStringLiteral("second"));
    QCOMPARE(m_out->size(), 1);
    QCOMPARE(compact(messageAt(*m_out, 0).value(QLatin1String("id"))), QByteArray("[8]"));
    QVERIFY(!messageAt(*m_out, 0).contains(QLatin1String("error")));
}

void tst_McpDispatcher::cancelForAnotherIdIsIgnored_data()
{
    QTest::addColumn<QJsonValue>("callId");
    QTest::addColumn<QJsonValue>("cancelId");
    QTest::newRow("other integer") << QJsonValue(1) << QJsonValue(2);
    QTest::newRow("string vs integer") << QJsonValue(1) << QJsonValue(QStringLiteral("1"));
    QTest::newRow("integer vs string") << QJsonValue(QStringLiteral("1")) << QJsonValue(1);
    QTest::newRow("missing requestId") << QJsonValue(1) << QJsonValue(QJsonValue::Undefined);
}

void tst_McpDispatcher::cancelForAnotherIdIsIgnored()
{
    QFETCH(QJsonValue, callId);
    QFETCH(QJsonValue, cancelId);

    m_dispatcher->handle(
        request(callId, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    QJsonObject params;
    if (!cancelId.isUndefined())
        params.insert(QStringLiteral("requestId"), cancelId);
    m_dispatcher->handle(notification(QStringLiteral("notifications/cancelled"), params));
    QCOMPARE(m_tool->calls.first()->cancelCount(), 0);
    m_tool->calls.first()->finish(QStringLiteral("kept running"));
    QCOMPARE(m_out->size(), 1);
    QCOMPARE(compact(messageAt(*m_out, 0).value(QLatin1String("id"))), compact(callId));
}

void tst_McpDispatcher::duplicateIdOfRunningCall()
{
    m_dispatcher->handle(
        request(5, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    m_dispatcher->handle(
        request(5, QStringLiteral("tools/call"), callParams(QStringLiteral("other_tool"))));
    m_dispatcher->handle(request(5, QStringLiteral("ping")));
    QCOMPARE(m_out->size(), 2);
    for (qsizetype i = 0; i < 2; ++i) {
        const QJsonObject reply = messageAt(*m_out, i);
        QCOMPARE(compact(reply.value(QLatin1String("id"))), QByteArray("[5]"));
        QCOMPARE(
            reply.value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(),
            -32600);
    }
    QVERIFY(m_otherTool->calls.isEmpty()); // the duplicate did not start anything
    QCOMPARE(m_dispatcher->runningCallCount(), 1);

    // The first call is unaffected and still answered.
    m_tool->calls.first()->finish(QStringLiteral("first"));
    QCOMPARE(m_out->size(), 3);
    const QJsonObject reply = messageAt(*m_out, 2);
    QCOMPARE(compact(reply.value(QLatin1String("id"))), QByteArray("[5]"));
    QVERIFY(reply.contains(QLatin1String("result")));

    // Once answered, the id is free again.
    m_dispatcher->handle(request(5, QStringLiteral("ping")));
    QCOMPARE(m_out->size(), 4);
    QVERIFY(messageAt(*m_out, 3).contains(QLatin1String("result")));
}

void tst_McpDispatcher::cancelAll()
{
    m_tool->onCancel = FakeToolCall::OnCancel::Wait;
    for (int id = 1; id <= 3; ++id) {
        m_dispatcher->handle(
            request(id, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    }
    QCOMPARE(m_dispatcher->runningCallCount(), 3);
    const QList<QPointer<FakeToolCall>> calls = m_tool->calls;

    m_dispatcher->cancelAll();
    for (const auto& call : calls)
        QCOMPARE(call->cancelCount(), 1);
    QCOMPARE(m_idle->size(), 0); // not before every call has cleaned up

    calls.at(0)->confirmCancelled();
    calls.at(2)->confirmCancelled();
    QCOMPARE(m_idle->size(), 0);
    QCOMPARE(m_dispatcher->runningCallCount(), 1);
    // A result that still comes in after cancelAll() is not sent; it counts as cleaned up.
    calls.at(1)->finish(QStringLiteral("too late"));
    QCOMPARE(m_dispatcher->runningCallCount(), 0);
    QCOMPARE(m_idle->size(), 1);

    settle();
    QCOMPARE(m_idle->size(), 1); // once
    QCOMPARE(m_out->size(), 0);  // no response for any cancelled call
    for (const auto& call : calls)
        QVERIFY(call.isNull());
}

void tst_McpDispatcher::cancelAllWhenIdle()
{
    m_dispatcher->cancelAll();
    // Queued, so that a caller connecting to idle() right after cancelAll() still sees it.
    QCOMPARE(m_idle->size(), 0);
    QVERIFY(m_idle->wait(1000));
    QCOMPARE(m_idle->size(), 1);
    QCOMPARE(m_out->size(), 0);
}

void tst_McpDispatcher::idleAfterLastCallFinishes()
{
    m_dispatcher->handle(
        request(1, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    m_dispatcher->handle(
        request(2, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    m_tool->calls.at(0)->finish(QStringLiteral("a"));
    QCOMPARE(m_idle->size(), 0);
    m_tool->calls.at(1)->finish(QStringLiteral("b"));
    QCOMPARE(m_idle->size(), 1);
}

void tst_McpDispatcher::finishedCallsAreDeleted()
{
    m_dispatcher->handle(
        request(1, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    QPointer<FakeToolCall> call = m_tool->calls.first();
    call->finish(QStringLiteral("done"));
    QVERIFY(call); // deleted later, not from inside its own signal
    settle();
    QVERIFY(call.isNull());
    // A second finished() from a deleted call cannot happen; the dispatcher holds no stale state.
    m_dispatcher->handle(request(1, QStringLiteral("ping")));
    QCOMPARE(m_out->size(), 2);
    QVERIFY(messageAt(*m_out, 1).contains(QLatin1String("result")));
}

void tst_McpDispatcher::reportsClientAndRunningCalls()
{
    // The desktop app's Server page follows these signals instead of asking again and again.
    QSignalSpy identified(m_dispatcher.get(), &McpDispatcher::clientIdentified);
    QSignalSpy counts(m_dispatcher.get(), &McpDispatcher::runningCallCountChanged);
    m_dispatcher->handle(
        request(1, QStringLiteral("initialize"),
                {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                 {QStringLiteral("clientInfo"),
                  QJsonObject{{QStringLiteral("name"), QStringLiteral("c")},
                              {QStringLiteral("version"), QStringLiteral("1")}}}}));
    QCOMPARE(identified.size(), 1);
    QCOMPARE(counts.size(), 0);

    m_tool->onCancel = FakeToolCall::OnCancel::Wait;
    m_dispatcher->handle(
        request(2, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    m_dispatcher->handle(
        request(3, QStringLiteral("tools/call"), callParams(QStringLiteral("fake_tool"))));
    m_tool->calls.at(0)->finish(QStringLiteral("a"));
    // Cancelled, it still counts until it has cleaned up.
    m_dispatcher->handle(notification(QStringLiteral("notifications/cancelled"), cancelParams(3)));
    QCOMPARE(counts.size(), 3);
    m_tool->calls.at(1)->confirmCancelled();

    QList<int> seen;
    for (const QList<QVariant>& signal : std::as_const(counts))
        seen.append(signal.at(0).toInt());
    QCOMPARE(seen, (QList<int>{1, 2, 1, 0}));
    QCOMPARE(identified.size(), 1);
}

void tst_McpDispatcher::progressOnlyWithAToken_data()
{
    QTest::addColumn<QJsonValue>("token"); // undefined: no _meta at all
    QTest::addColumn<bool>("expectProgress");

    QTest::newRow("string token") << QJsonValue(QStringLiteral("tok")) << true;
    QTest::newRow("integer token") << QJsonValue(5) << true;
    QTest::newRow("no _meta") << QJsonValue(QJsonValue::Undefined) << false;
    QTest::newRow("invalid token") << QJsonValue(QJsonObject{}) << false;
}

void tst_McpDispatcher::progressOnlyWithAToken()
{
    QFETCH(QJsonValue, token);
    QFETCH(bool, expectProgress);
    m_dispatcher->setProgressTiming({10, 50});
    QJsonObject params = callParams(QStringLiteral("fake_tool"));
    if (!token.isUndefined())
        params.insert(QStringLiteral("_meta"),
                      QJsonObject{{QStringLiteral("progressToken"), token}});
    m_dispatcher->handle(request(3, QStringLiteral("tools/call"), params));
    QTest::qWait(300);
    const qsizetype notifications = m_out->size();
    if (expectProgress) {
        QVERIFY2(notifications >= 2, qPrintable(QString::number(notifications)));
        const QJsonObject first = messageAt(*m_out, 0);
        QCOMPARE(first.value(QLatin1String("method")).toString(),
                 QStringLiteral("notifications/progress"));
        QCOMPARE(
            first.value(QLatin1String("params")).toObject().value(QLatin1String("progressToken")),
            token);
    } else {
        QCOMPARE(notifications, 0);
    }
    // The response is the last message: no progress follows it.
    m_tool->calls.first()->finish(QStringLiteral("done"));
    QTest::qWait(200);
    QCOMPARE(m_out->size(), notifications + 1);
    QVERIFY(messageAt(*m_out, notifications).contains(QLatin1String("result")));
}

QTEST_GUILESS_MAIN(tst_McpDispatcher)
#include "tst_McpDispatcher.moc"
