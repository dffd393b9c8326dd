#include "mcp/McpDispatcher.h"

#include "core/Logging.h"
#include "core/LogText.h"
#include "mcp/ClientResultShape.h"
#include "mcp/JsonRpc.h"
#include "mcp/ProtocolVersion.h"
#include "mcp/ResourceProvider.h"
#include "mcp/Tool.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace csm {

using jsonrpc::ErrorCode;
using jsonrpc::idKey;

McpDispatcher::McpDispatcher(const ToolRegistry& tools, ServerIdentity identity, QString transport,
                             QString sessionId, QObject* parent)
    : QObject(parent)
    , m_tools(tools)
    , m_identity(std::move(identity))
    , m_transport(std::move(transport))
    , m_sessionId(std::move(sessionId))
{}

McpDispatcher::~McpDispatcher() = default;

void McpDispatcher::handleMessage(const QByteArray& bytes)
{
    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        Q_EMIT outgoing(jsonrpc::error(QJsonValue::Null, ErrorCode::ParseError,
                                       QStringLiteral("Parse error: %1 at offset %2")
                                           .arg(parseError.errorString())
                                           .arg(parseError.offset)));
        return;
    }
    if (document.isArray()) {
        // Batches were removed from MCP in 2025-06-18 and no client we know sends them.
        Q_EMIT outgoing(jsonrpc::error(QJsonValue::Null, ErrorCode::InvalidRequest,
                                       QStringLiteral("JSON-RPC batches are not supported")));
        return;
    }
    handle(document.object());
}

void McpDispatcher::handle(const QJsonObject& message)
{
    const bool hasId = message.contains(QLatin1String("id"));
    const QJsonValue id = message.value(QLatin1String("id"));
    const QJsonValue replyId = hasId && jsonrpc::isValidId(id) ? id : QJsonValue(QJsonValue::Null);

    if (message.value(QLatin1String("jsonrpc")).toString() != QLatin1String("2.0")) {
        Q_EMIT outgoing(
            jsonrpc::error(replyId, ErrorCode::InvalidRequest,
                           QStringLiteral("Invalid request: \"jsonrpc\" must be \"2.0\"")));
        return;
    }
    const QJsonValue method = message.value(QLatin1String("method"));
    if (!method.isString()) {
        if (message.contains(QLatin1String("result")) || message.contains(QLatin1String("error")))
            return; // A client's response to a server request; we send none yet.
        Q_EMIT outgoing(
            jsonrpc::error(replyId, ErrorCode::InvalidRequest,
                           QStringLiteral("Invalid request: \"method\" must be a string")));
        return;
    }
    if (hasId && !jsonrpc::isValidId(id)) {
        Q_EMIT outgoing(jsonrpc::error(
            QJsonValue::Null, ErrorCode::InvalidRequest,
            QStringLiteral("Invalid request: \"id\" must be a string or an integer")));
        return;
    }
    const QJsonValue params = message.value(QLatin1String("params"));
    if (!params.isUndefined() && !params.isObject()) {
        if (hasId) {
            Q_EMIT outgoing(
                jsonrpc::error(id, ErrorCode::InvalidParams,
                               QStringLiteral("Invalid params: \"params\" must be an object")));
        }
        return;
    }
    if (hasId)
        handleRequest(id, method.toString(), params.toObject());
    else
        handleNotification(method.toString(), params.toObject());
}

void McpDispatcher::handleRequest(const QJsonValue& id, const QString& method,
                                  const QJsonObject& params)
{
    if (m_awaitingResponse.contains(idKey(id))) {
        Q_EMIT outgoing(
            jsonrpc::error(id, ErrorCode::InvalidRequest,
                           QStringLiteral("Request id is already in use by a running call")));
        return;
    }
    if (method == QLatin1String("initialize")) {
        Q_EMIT outgoing(jsonrpc::result(id, initialize(params)));
    } else if (method == QLatin1String("ping")) {
        Q_EMIT outgoing(jsonrpc::result(id, {}));
    } else if (method == QLatin1String("tools/list")) {
        Q_EMIT outgoing(jsonrpc::result(
            id, {{QStringLiteral("tools"), resultShape().toolDefinitions(m_tools.definitions())}}));
    } else if (method == QLatin1String("tools/call")) {
        callTool(id, params);
    } else if (m_resources && method == QLatin1String("resources/read")) {
        readResource(id, params);
    } else if (m_resources && method == QLatin1String("resources/list")) {
        // Not listed: a run's files are announced to the client that ran it, as resource_link
        // blocks in its result. Listing them would show every client the URIs of the others'.
        Q_EMIT outgoing(jsonrpc::result(id, {{QStringLiteral("resources"), QJsonArray{}}}));
    } else if (m_resources && method == QLatin1String("resources/templates/list")) {
        Q_EMIT outgoing(jsonrpc::result(id, {{QStringLiteral("resourceTemplates"), QJsonArray{}}}));
    } else {
        Q_EMIT outgoing(jsonrpc::error(id, ErrorCode::MethodNotFound,
                                       QStringLiteral("Method not found: %1").arg(method)));
    }
}

void McpDispatcher::handleNotification(const QString& method, const QJsonObject& params)
{
    if (method == QLatin1String("notifications/cancelled")) {
        const QJsonValue requestId = params.value(QLatin1String("requestId"));
        ToolCall* call = m_awaitingResponse.take(idKey(requestId));
        if (call) {
            qCInfo(lcMcp).noquote()
                << "cancelling request" << LogText::escaped(QString::fromUtf8(idKey(requestId)));
            call->cancel();
        }
    }
    // notifications/initialized and anything unknown need no action: notifications get no answer.
}

QJsonObject McpDispatcher::initialize(const QJsonObject& params)
{
    m_protocolVersion =
        ProtocolVersion::negotiate(params.value(QLatin1String("protocolVersion")).toString());
    m_clientInfo = params.value(QLatin1String("clientInfo")).toObject();
    // The client chose its name and version: escaped and cut, so that it cannot forge log lines.
    qCInfo(lcMcp).noquote()
        << "client"
        << LogText::escaped(m_clientInfo.value(QLatin1String("name")).toString(QStringLiteral("?")))
        << LogText::escaped(m_clientInfo.value(QLatin1String("version")).toString()) << "protocol"
        << m_protocolVersion;
    Q_EMIT clientIdentified();

    QJsonObject serverInfo{{QStringLiteral("name"), m_identity.name},
                           {QStringLiteral("version"), m_identity.version}};
    if (!m_identity.title.isEmpty())
        serverInfo.insert(QStringLiteral("title"), m_identity.title);
    QJsonObject capabilities{
        {QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}}};
    if (m_resources) {
        capabilities.insert(QStringLiteral("resources"),
                            QJsonObject{{QStringLiteral("listChanged"), false},
                                        {QStringLiteral("subscribe"), false}});
    }
    QJsonObject result{
        {QStringLiteral("protocolVersion"), m_protocolVersion},
        {QStringLiteral("capabilities"), capabilities},
        {QStringLiteral("serverInfo"), serverInfo},
    };
    if (!m_identity.instructions.isEmpty())
        result.insert(QStringLiteral("instructions"), m_identity.instructions);
    return result;
}

void McpDispatcher::callTool(const QJsonValue& id, const QJsonObject& params)
{
    const QJsonValue name = params.value(QLatin1String("name"));
    if (!name.isString()) {
        Q_EMIT outgoing(
            jsonrpc::error(id, ErrorCode::InvalidParams,
                           QStringLiteral("Invalid params: \"name\" must be a string")));
        return;
    }
    Tool* tool = m_tools.find(name.toString());
    if (!tool) {
        Q_EMIT outgoing(jsonrpc::error(id, ErrorCode::InvalidParams,
                                       QStringLiteral("Unknown tool: %1").arg(name.toString())));
        return;
    }
    const QJsonValue arguments = params.value(QLatin1String("arguments"));
    if (!arguments.isUndefined() && !arguments.isNull() && !arguments.isObject()) {
        Q_EMIT outgoing(
            jsonrpc::error(id, ErrorCode::InvalidParams,
                           QStringLiteral("Invalid params: \"arguments\" must be an object")));
        return;
    }

    CallContext context = callerContext();
    context.tool = tool->name();
    ToolCall* call = tool->start(arguments.toObject(), context, this);
    const QByteArray key = idKey(id);
    m_awaitingResponse.insert(key, call);
    m_alive.insert(call);
    Q_EMIT runningCallCountChanged(runningCallCount());
    connect(call, &ToolCall::finished, this, [this, call, key, id](const QJsonObject& result) {
        if (m_awaitingResponse.value(key) == call) {
            m_awaitingResponse.remove(key);
            Q_EMIT outgoing(jsonrpc::result(id, resultShape().callResult(result)));
        }
        forget(call);
    });
    connect(call, &ToolCall::cancelled, this, [this, call] { forget(call); });

    const QJsonValue progressToken =
        params.value(QLatin1String("_meta")).toObject().value(QLatin1String("progressToken"));
    if (jsonrpc::isValidId(progressToken)) {
        auto* progress = new ProgressNotifier(*call, progressToken, m_progressTiming, call);
        connect(progress, &ProgressNotifier::notification, this, &McpDispatcher::outgoing);
    }
}

CallContext McpDispatcher::callerContext() const
{
    CallContext context;
    context.transport = m_transport;
    context.sessionId = m_sessionId;
    context.clientName = m_clientInfo.value(QLatin1String("name")).toString();
    context.clientVersion = m_clientInfo.value(QLatin1String("version")).toString();
    return context;
}

void McpDispatcher::readResource(const QJsonValue& id, const QJsonObject& params)
{
    const QJsonValue uri = params.value(QLatin1String("uri"));
    if (!uri.isString()) {
        Q_EMIT outgoing(jsonrpc::error(id, ErrorCode::InvalidParams,
                                       QStringLiteral("Invalid params: \"uri\" must be a string")));
        return;
    }
    Expected<QJsonObject> contents = m_resources->read(uri.toString(), callerContext());
    if (!contents) {
        Q_EMIT outgoing(jsonrpc::error(id, ErrorCode::ResourceNotFound, contents.error()));
        return;
    }
    Q_EMIT outgoing(jsonrpc::result(id, *contents));
}

ClientResultShape McpDispatcher::resultShape() const
{
    return ClientResultShape(m_clientInfo.value(QLatin1String("name")).toString(),
                             m_protocolVersion);
}

void McpDispatcher::forget(ToolCall* call)
{
    if (!m_alive.remove(call))
        return;
    // A call that ended on its own (not through cancel) must not stay reachable by its id.
    for (auto it = m_awaitingResponse.begin(); it != m_awaitingResponse.end();) {
        if (it.value() == call)
            it = m_awaitingResponse.erase(it);
        else
            ++it;
    }
    call->deleteLater();
    Q_EMIT runningCallCountChanged(runningCallCount());
    if (m_alive.isEmpty())
        Q_EMIT idle();
}

void McpDispatcher::cancelAll()
{
    m_awaitingResponse.clear();
    if (m_alive.isEmpty()) {
        QMetaObject::invokeMethod(this, &McpDispatcher::idle, Qt::QueuedConnection);
        return;
    }
    const auto calls = m_alive.values();
    for (ToolCall* call : calls)
        call->cancel();
}

} // namespace csm
