#include "transport/http/McpHttpEndpoint.h"

#include "core/Logging.h"
#include "core/LogText.h"
#include "mcp/JsonRpc.h"
#include "mcp/ProtocolVersion.h"
#include "transport/http/HttpConnection.h"
#include "transport/http/HttpRequest.h"
#include "transport/http/HttpResponse.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRandomGenerator>

#include <algorithm>

namespace csm::http {

using jsonrpc::ErrorCode;

namespace {
// The media types of an Accept or Content-Type value, lower-case, parameters dropped.
QList<QByteArray> mediaTypes(const QByteArray& value)
{
    QList<QByteArray> types;
    for (const QByteArray& item : value.split(',')) {
        const QByteArray type = item.split(';').constFirst().trimmed().toLower();
        if (!type.isEmpty())
            types << type;
    }
    return types;
}

bool accepts(const QList<QByteArray>& accepted, const QByteArray& type)
{
    const QByteArray family = type.left(type.indexOf('/')) + "/*";
    return accepted.contains(type) || accepted.contains(family) || accepted.contains("*/*");
}

QByteArray sseEvent(const QJsonObject& message)
{
    return "event: message\ndata: " + QJsonDocument(message).toJson(QJsonDocument::Compact) +
           "\n\n";
}

HttpResponse eventStreamHead()
{
    HttpResponse head;
    head.setHeader("Content-Type", "text/event-stream");
    head.setHeader("Cache-Control", "no-cache, no-transform");
    // Proxies that buffer (nginx) would hold progress back until the end.
    head.setHeader("X-Accel-Buffering", "no");
    return head;
}

HttpResponse accepted()
{
    HttpResponse response;
    response.status = 202;
    return response;
}
} // namespace

McpHttpEndpoint::McpHttpEndpoint(const HttpServerConfig& config, QObject* parent)
    : QObject(parent)
    , m_config(config)
    , m_access(config)
    , m_expiryTimer(this)
    , m_keepAliveTimer(this)
{
    const int idleMs = m_config.sessionIdleSeconds * 1000;
    m_expiryTimer.setInterval(std::clamp(idleMs / 4, 250, 30'000));
    connect(&m_expiryTimer, &QTimer::timeout, this, &McpHttpEndpoint::expireIdleSessions);
    m_expiryTimer.start();
    m_keepAliveTimer.setInterval(m_config.keepAliveIntervalSeconds * 1000);
    connect(&m_keepAliveTimer, &QTimer::timeout, this, &McpHttpEndpoint::sendKeepAlives);
    m_keepAliveTimer.start();
}

McpHttpEndpoint::~McpHttpEndpoint() = default;

std::optional<HttpResponse> McpHttpEndpoint::admit(const HttpRequest& head)
{
    std::optional<HttpResponse> refusal = m_access.check(head);
    if (refusal) {
        // What the client sent is shown escaped and cut short: it cannot forge log lines, nor
        // make each refusal cost the log a 64 KiB target.
        qCInfo(lcHttp).noquote() << "refused" << LogText::escaped(head.method, 20)
                                 << LogText::escaped(head.target) << "with" << refusal->status;
    }
    return refusal;
}

void McpHttpEndpoint::setAuthToken(const QString& token)
{
    m_access.setToken(token);
}

void McpHttpEndpoint::handleRequest(HttpConnection& connection, const HttpRequest& request)
{
    // admit() has let the request in before its body was read.
    if (request.path() != m_config.path.toUtf8()) {
        connection.respond(HttpResponse::error(
            404, QStringLiteral("Not Found: the MCP endpoint is %1").arg(m_config.path)));
        return;
    }
    if (request.method == "POST") {
        handlePost(connection, request);
    } else if (request.method == "GET") {
        handleGet(connection, request);
    } else if (request.method == "DELETE") {
        handleDelete(connection, request);
    } else {
        HttpResponse refusal =
            HttpResponse::error(405, QStringLiteral("Method Not Allowed: use POST, GET or DELETE"));
        refusal.setHeader("Allow", "GET, POST, DELETE");
        connection.respond(refusal);
    }
}

HttpSession* McpHttpEndpoint::sessionFor(const HttpRequest& request,
                                         std::optional<HttpResponse>* refusal)
{
    const QByteArray id = request.header("mcp-session-id");
    if (id.isEmpty()) {
        *refusal = HttpResponse::error(
            400, QStringLiteral("Bad Request: Mcp-Session-Id header is required (initialize "
                                "first)"));
        return nullptr;
    }
    const auto found = m_sessions.find(QString::fromLatin1(id));
    if (found == m_sessions.end()) {
        *refusal = HttpResponse::error(
            404, QStringLiteral("Session not found: it ended or expired; initialize again"));
        return nullptr;
    }
    // Without the header the client speaks 2025-03-26, which is supported.
    const QByteArray version = request.header("mcp-protocol-version");
    if (!version.isNull() && !ProtocolVersion::isSupported(QString::fromLatin1(version))) {
        *refusal = HttpResponse::error(
            400, QStringLiteral("Bad Request: unsupported MCP-Protocol-Version \"%1\" (supported: "
                                "%2)")
                     .arg(QString::fromLatin1(version.left(100)),
                          ProtocolVersion::supported().join(QStringLiteral(", "))));
        return nullptr;
    }
    found->second.lastActivity.start();
    return &found->second;
}

void McpHttpEndpoint::handlePost(HttpConnection& connection, const HttpRequest& request)
{
    const QList<QByteArray> accept = mediaTypes(request.header("accept"));
    if (!accepts(accept, "application/json") || !accepts(accept, "text/event-stream")) {
        connection.respond(HttpResponse::error(
            406, QStringLiteral("Not Acceptable: Accept must list both application/json and "
                                "text/event-stream")));
        return;
    }
    if (mediaTypes(request.header("content-type")) != QList<QByteArray>{"application/json"}) {
        connection.respond(HttpResponse::error(
            415, QStringLiteral("Unsupported Media Type: Content-Type must be application/json")));
        return;
    }

    QJsonParseError parseError{};
    const QJsonDocument document = QJsonDocument::fromJson(request.body, &parseError);
    // Qt refuses a bare scalar (42, "x", null) as a document; JSON-RPC calls that valid JSON
    // but an invalid request (-32600), not a parse error.
    const bool isScalar = parseError.error != QJsonParseError::NoError &&
                          QJsonDocument::fromJson('[' + request.body + ']').array().size() == 1;
    if (parseError.error != QJsonParseError::NoError && !isScalar) {
        connection.respond(HttpResponse::error(400,
                                               QStringLiteral("Parse error: %1 at offset %2")
                                                   .arg(parseError.errorString())
                                                   .arg(parseError.offset),
                                               ErrorCode::ParseError));
        return;
    }
    if (!document.isObject()) {
        connection.respond(HttpResponse::error(
            400,
            document.isArray() ? QStringLiteral("JSON-RPC batches are not supported")
                               : QStringLiteral("Invalid request: not a JSON-RPC message"),
            ErrorCode::InvalidRequest));
        return;
    }
    const QJsonObject message = document.object();
    const bool hasId = message.contains(QLatin1String("id"));
    const QJsonValue id = message.value(QLatin1String("id"));
    const QJsonValue method = message.value(QLatin1String("method"));
    const bool isResponse = !method.isString() && (message.contains(QLatin1String("result")) ||
                                                   message.contains(QLatin1String("error")));
    if (message.value(QLatin1String("jsonrpc")).toString() != QLatin1String("2.0") ||
        (hasId && !jsonrpc::isValidId(id)) || (!method.isString() && !isResponse)) {
        connection.respond(HttpResponse::error(
            400,
            QStringLiteral("Invalid request: not a JSON-RPC 2.0 request, notification or "
                           "response"),
            ErrorCode::InvalidRequest));
        return;
    }
    const bool isRequest = method.isString() && hasId;
    const bool initialize = isRequest && method.toString() == QLatin1String("initialize");

    HttpSession* session = nullptr;
    if (initialize && request.header("mcp-session-id").isEmpty()) {
        if (static_cast<int>(m_sessions.size()) >= m_config.maxSessions) {
            HttpResponse refusal = HttpResponse::error(
                503, QStringLiteral("Too many sessions (%1): end one (DELETE) or wait for idle "
                                    "ones to expire")
                         .arg(m_config.maxSessions));
            refusal.setHeader("Retry-After", "5");
            connection.respond(refusal);
            return;
        }
        const QString sessionId = newSessionId();
        session = &m_sessions[sessionId];
        session->id = sessionId;
        session->lastActivity.start();
        qCInfo(lcHttp).noquote() << "session" << sessionId << "opened;" << m_sessions.size()
                                 << "open";
        Q_EMIT sessionOpened(sessionId);
    } else {
        std::optional<HttpResponse> refusal;
        session = sessionFor(request, &refusal);
        if (!session) {
            connection.respond(*refusal);
            return;
        }
    }

    if (!isRequest) {
        if (method.toString() == QLatin1String("notifications/cancelled")) {
            // The call ends without a response: its stream ends too.
            const QJsonValue requestId =
                message.value(QLatin1String("params")).toObject().value(QLatin1String("requestId"));
            endPendingRequest(*session, jsonrpc::idKey(requestId));
        }
        connection.respond(accepted());
        Q_EMIT messageReceived(session->id, message);
        return;
    }
    acceptRequest(connection, *session, message, initialize);
}

void McpHttpEndpoint::acceptRequest(HttpConnection& connection, HttpSession& session,
                                    const QJsonObject& message, bool initialize)
{
    const QJsonValue id = message.value(QLatin1String("id"));
    const QByteArray key = jsonrpc::idKey(id);
    if (session.pending.contains(key)) {
        // Answered here: the dispatcher's reply would be routed to the other request's stream.
        connection.respond(HttpResponse::json(
            200, jsonrpc::error(id, ErrorCode::InvalidRequest,
                                QStringLiteral("Request id is already in use by a running "
                                               "request"))));
        return;
    }
    const QJsonObject params = message.value(QLatin1String("params")).toObject();
    HttpSession::PendingRequest pending;
    pending.connection = &connection;
    pending.id = id;
    pending.initialize = initialize;
    // A tool call may run for minutes and report progress: it is answered as a stream, which
    // also keeps idle-sensitive clients and proxies alive with comments.
    pending.streamed =
        message.value(QLatin1String("method")).toString() == QLatin1String("tools/call");
    const QJsonValue token =
        params.value(QLatin1String("_meta")).toObject().value(QLatin1String("progressToken"));
    if (jsonrpc::isValidId(token)) {
        pending.progressKey = jsonrpc::idKey(token);
        session.requestByProgressToken.insert(pending.progressKey, key);
    }
    session.pending.insert(key, pending);
    m_exchanges.insert(&connection, Exchange{session.id, key});
    if (pending.streamed)
        connection.beginStream(eventStreamHead());
    Q_EMIT messageReceived(session.id, message);
}

void McpHttpEndpoint::handleGet(HttpConnection& connection, const HttpRequest& request)
{
    if (!accepts(mediaTypes(request.header("accept")), "text/event-stream")) {
        connection.respond(HttpResponse::error(
            406, QStringLiteral("Not Acceptable: a GET stream needs Accept: text/event-stream")));
        return;
    }
    if (request.header("mcp-session-id").isEmpty()) {
        // Some clients probe with GET before they initialize; 405 tells them there is no stream
        // to open (yet), which they accept.
        HttpResponse refusal = HttpResponse::error(
            405, QStringLiteral("Method Not Allowed: a GET stream needs a session (initialize "
                                "with POST first)"));
        refusal.setHeader("Allow", "GET, POST, DELETE");
        connection.respond(refusal);
        return;
    }
    std::optional<HttpResponse> refusal;
    HttpSession* session = sessionFor(request, &refusal);
    if (!session) {
        connection.respond(*refusal);
        return;
    }
    if (session->eventStream && !session->eventStream->isClosed()) {
        connection.respond(HttpResponse::error(
            409, QStringLiteral("Conflict: this session already has a GET stream open")));
        return;
    }
    session->eventStream = &connection;
    m_eventStreams.insert(&connection, session->id);
    connection.beginStream(eventStreamHead());
}

void McpHttpEndpoint::handleDelete(HttpConnection& connection, const HttpRequest& request)
{
    std::optional<HttpResponse> refusal;
    HttpSession* session = sessionFor(request, &refusal);
    if (!session) {
        connection.respond(*refusal);
        return;
    }
    closeSession(session->id, QStringLiteral("deleted by the client"));
    HttpResponse done;
    done.status = 200;
    connection.respond(done);
}

void McpHttpEndpoint::deliver(const QString& sessionId, const QJsonObject& message)
{
    const auto found = m_sessions.find(sessionId);
    if (found == m_sessions.end())
        return; // ended meanwhile: nobody waits for this
    HttpSession& session = found->second;
    if (!message.contains(QLatin1String("method"))) {
        respondTo(session, message);
        return;
    }
    if (message.value(QLatin1String("method")).toString() ==
        QLatin1String("notifications/progress")) {
        const QByteArray token = jsonrpc::idKey(message.value(QLatin1String("params"))
                                                    .toObject()
                                                    .value(QLatin1String("progressToken")));
        const auto pending = session.pending.constFind(session.requestByProgressToken.value(token));
        if (pending != session.pending.cend() && pending->streamed && pending->connection)
            pending->connection->writeToStream(sseEvent(message));
        return;
    }
    if (session.eventStream)
        session.eventStream->writeToStream(sseEvent(message));
}

void McpHttpEndpoint::respondTo(HttpSession& session, const QJsonObject& response)
{
    const QByteArray key = jsonrpc::idKey(response.value(QLatin1String("id")));
    const HttpSession::PendingRequest pending = session.pending.take(key);
    session.requestByProgressToken.remove(pending.progressKey);
    session.lastActivity.start();
    if (!pending.connection)
        return; // the client went away; its call was cancelled
    HttpConnection& connection = *pending.connection;
    m_exchanges.remove(&connection);
    if (pending.streamed) {
        connection.writeToStream(sseEvent(response));
        connection.endStream();
        return;
    }
    HttpResponse reply = HttpResponse::json(200, response);
    if (pending.initialize) {
        if (response.contains(QLatin1String("error"))) {
            connection.respond(reply);
            closeSession(session.id, QStringLiteral("initialize failed"));
            return;
        }
        reply.setHeader("Mcp-Session-Id", session.id.toLatin1());
    }
    connection.respond(reply);
}

void McpHttpEndpoint::endPendingRequest(HttpSession& session, const QByteArray& requestKey)
{
    const auto found = session.pending.find(requestKey);
    if (found == session.pending.end())
        return;
    const HttpSession::PendingRequest pending = *found;
    session.pending.erase(found);
    session.requestByProgressToken.remove(pending.progressKey);
    if (!pending.connection)
        return;
    m_exchanges.remove(pending.connection);
    if (pending.streamed)
        pending.connection->endStream();
    else
        pending.connection->respond(
            HttpResponse::error(404, QStringLiteral("The session or request ended")));
}

void McpHttpEndpoint::connectionClosed(HttpConnection& connection)
{
    if (const auto stream = m_eventStreams.constFind(&connection);
        stream != m_eventStreams.cend()) {
        m_eventStreams.erase(stream);
    }
    const auto exchange = m_exchanges.constFind(&connection);
    if (exchange == m_exchanges.cend())
        return;
    const Exchange gone = *exchange;
    m_exchanges.erase(exchange);
    const auto found = m_sessions.find(gone.sessionId);
    if (found == m_sessions.end())
        return;
    HttpSession& session = found->second;
    const HttpSession::PendingRequest pending = session.pending.take(gone.requestKey);
    session.requestByProgressToken.remove(pending.progressKey);
    session.lastActivity.start();
    // Nobody can receive the result any more: stop the work (and remove its container) as if
    // the client had cancelled it.
    qCInfo(lcHttp).noquote() << "session" << session.id
                             << "closed its connection before a response; cancelling the request";
    Q_EMIT messageReceived(
        session.id, jsonrpc::notification(QStringLiteral("notifications/cancelled"),
                                          {{QStringLiteral("requestId"), pending.id},
                                           {QStringLiteral("reason"),
                                            QStringLiteral("The client closed its connection")}}));
}

void McpHttpEndpoint::closeSession(QString sessionId, const QString& reason)
{
    const auto found = m_sessions.find(sessionId);
    if (found == m_sessions.end())
        return;
    HttpSession session = std::move(found->second);
    m_sessions.erase(found);
    // A request still waiting gets an answer, so that its client does not wait for its own
    // timeout: the call was stopped, and its sandbox is removed.
    for (const HttpSession::PendingRequest& pending : std::as_const(session.pending)) {
        if (!pending.connection)
            continue;
        m_exchanges.remove(pending.connection);
        const QJsonObject error =
            jsonrpc::error(pending.id, ErrorCode::ServerError,
                           QStringLiteral("The session ended (%1) before this request finished; "
                                          "its work was stopped")
                               .arg(reason));
        if (pending.streamed) {
            pending.connection->writeToStream(sseEvent(error));
            pending.connection->endStream();
        } else {
            pending.connection->respond(HttpResponse::json(200, error));
        }
    }
    if (session.eventStream) {
        m_eventStreams.remove(session.eventStream);
        session.eventStream->endStream();
    }
    qCInfo(lcHttp).noquote() << "session" << sessionId << "ended:" << reason + u';'
                             << m_sessions.size() << "open";
    Q_EMIT sessionClosed(sessionId);
}

void McpHttpEndpoint::closeAllSessions()
{
    QStringList ids;
    for (const auto& [id, session] : m_sessions)
        ids << id;
    for (const QString& id : std::as_const(ids))
        closeSession(id, QStringLiteral("the server is stopping"));
}

void McpHttpEndpoint::expireIdleSessions()
{
    const qint64 idleMs = qint64(m_config.sessionIdleSeconds) * 1000;
    QStringList expired;
    for (const auto& [id, session] : m_sessions) {
        if (session.isQuiet() && session.lastActivity.elapsed() >= idleMs)
            expired << id;
    }
    for (const QString& id : std::as_const(expired))
        closeSession(
            id,
            QStringLiteral("expired after %1 s without activity").arg(m_config.sessionIdleSeconds));
}

void McpHttpEndpoint::sendKeepAlives()
{
    for (const auto& [id, session] : m_sessions) {
        for (const HttpSession::PendingRequest& pending : session.pending) {
            if (pending.streamed && pending.connection)
                pending.connection->writeToStream(": keep-alive\n\n");
        }
        if (session.eventStream)
            session.eventStream->writeToStream(": keep-alive\n\n");
    }
}

QString McpHttpEndpoint::newSessionId() const
{
    // 128 random bits from the system's generator: a session id is a capability.
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    QString id;
    for (const quint32 word : words)
        id += QStringLiteral("%1").arg(word, 8, 16, QLatin1Char('0'));
    return id;
}

} // namespace csm::http
