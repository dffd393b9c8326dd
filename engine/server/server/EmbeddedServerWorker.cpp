#include "server/EmbeddedServerWorker.h"

#include "approval/CallApprovals.h"
#include "core/Logging.h"
#include "mcp/CallContext.h"
#include "mcp/JsonRpc.h"
#include "mcp/McpDispatcher.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolResult.h"
#include "server/McpServer.h"
#include "server/McpSessionHost.h"
#include "transport/http/HttpServerThread.h"
#include "transport/http/McpHttpEndpoint.h"
#include "transport/StdioTransport.h"

#include <utility>

namespace csm {

namespace {
// Often enough for a count of running calls to feel live, rarely enough to cost nothing.
constexpr int kStatusIntervalMs = 250;
} // namespace

EmbeddedServerWorker::EmbeddedServerWorker(ServerOptions options)
    : m_options(std::move(options))
    , m_statusTimer(this) // a child, so that it moves to the server thread with the worker
{
    m_statusTimer.setInterval(kStatusIntervalMs);
    connect(&m_statusTimer, &QTimer::timeout, this, &EmbeddedServerWorker::publishStatus);
}

EmbeddedServerWorker::~EmbeddedServerWorker()
{
    // The transports feed the server's sessions: they go first.
    m_http.reset();
    m_httpSessions.reset();
    m_stdio.reset();
    m_server.reset();
}

void EmbeddedServerWorker::start()
{
    m_server = std::make_unique<McpServer>(m_options);
    CallApprovals& approvals = m_server->approvals();
    connect(&approvals, &CallApprovals::requested, this, &EmbeddedServerWorker::approvalRequested);
    connect(&approvals, &CallApprovals::settled, this, &EmbeddedServerWorker::approvalSettled);
    connect(m_server.get(), &McpServer::shutDown, this, [this] {
        m_stopped = true;
        Q_EMIT stopped();
    });
    m_statusTimer.start();
    publishStatus();
}

void EmbeddedServerWorker::serveStdio()
{
    if (!m_server || m_stdio)
        return;
    m_stdio = std::make_unique<StdioTransport>();
    StdioTransport* transport = m_stdio.get();
    McpDispatcher* session = m_server->openSession(QStringLiteral("stdio"));
    connect(transport, &StdioTransport::messageReceived, session, &McpDispatcher::handleMessage);
    connect(transport, &StdioTransport::messageTooLarge, transport, [transport] {
        transport->send(jsonrpc::error(QJsonValue::Null, jsonrpc::ErrorCode::InvalidRequest,
                                       QStringLiteral("Message larger than %1 MiB refused")
                                           .arg(StdioTransport::kMaxMessageBytes / (1024 * 1024))));
    });
    connect(session, &McpDispatcher::outgoing, transport, &StdioTransport::send);
    connect(transport, &StdioTransport::closed, this, [this, session] {
        qCInfo(lcServer) << "the stdio client closed its end";
        m_server->closeSession(session);
        Q_EMIT stdioClosed();
    });
    transport->start();
    qCInfo(lcServer) << "serving MCP on stdio";
}

void EmbeddedServerWorker::startHttp(const http::HttpServerConfig& config)
{
    if (!m_server || m_shuttingDown)
        return;
    stopHttpTransport();
    m_httpSessions = std::make_unique<McpSessionHost>(*m_server);
    m_http = std::make_unique<http::HttpServerThread>(config);
    http::McpHttpEndpoint& endpoint = m_http->endpoint();
    McpSessionHost* sessions = m_httpSessions.get();
    // The endpoint lives on the transport's own thread: every connection below is queued.
    connect(&endpoint, &http::McpHttpEndpoint::sessionOpened, sessions,
            &McpSessionHost::openSession);
    connect(&endpoint, &http::McpHttpEndpoint::messageReceived, sessions, &McpSessionHost::deliver);
    connect(&endpoint, &http::McpHttpEndpoint::sessionClosed, sessions,
            &McpSessionHost::closeSession);
    connect(sessions, &McpSessionHost::outgoing, &endpoint, &http::McpHttpEndpoint::deliver);
    connect(m_http.get(), &http::HttpServerThread::listening, this, [this](const QUrl& url) {
        m_httpUrl = url;
        qCInfo(lcServer).noquote() << "serving MCP on" << url.toString();
        Q_EMIT httpListening(url);
        publishStatus();
    });
    connect(m_http.get(), &http::HttpServerThread::failed, this, [this](const QString& error) {
        qCWarning(lcServer).noquote() << error;
        // Queued: the transport is still inside its own signal.
        QMetaObject::invokeMethod(this, &EmbeddedServerWorker::stopHttpTransport,
                                  Qt::QueuedConnection);
        Q_EMIT httpFailed(error);
    });
    m_http->start();
}

void EmbeddedServerWorker::stopHttp()
{
    if (!m_http)
        return;
    stopHttpTransport();
    Q_EMIT httpStopped();
}

void EmbeddedServerWorker::stopHttpTransport()
{
    if (m_http)
        m_http->stop(); // no new request; open streams end
    // The transport's own "session closed" messages are still queued: they would reach no one.
    if (m_httpSessions)
        m_httpSessions->closeAll();
    // Each HTTP session's running calls are cancelled (their containers removed).
    m_http.reset();
    m_httpSessions.reset();
    m_httpUrl.clear();
    publishStatus();
}

void EmbeddedServerWorker::setApproval(bool required, int timeoutMs)
{
    if (!m_server)
        return;
    m_server->approvals().setTimeoutMs(timeoutMs);
    m_server->approvals().setRequired(required);
}

void EmbeddedServerWorker::answerApproval(quint64 id, bool approved)
{
    if (m_server)
        m_server->approvals().answer(id, approved);
}

void EmbeddedServerWorker::runFromApp(quint64 ticket, const QString& toolName, const QString& code)
{
    CallContext context;
    context.transport = QStringLiteral("app");
    context.clientName = QStringLiteral("Code Sandbox (re-run)");
    context.tool = toolName;
    ToolCall* call = m_server && !m_shuttingDown
                         ? m_server->startAppCall(
                               toolName, QJsonObject{{QStringLiteral("code"), code}}, context, this)
                         : nullptr;
    if (!call) {
        Q_EMIT appRunFinished(
            ticket,
            ToolResult::error(QStringLiteral("The server cannot run %1 now.").arg(toolName)));
        return;
    }
    connect(call, &ToolCall::finished, this, [this, call, ticket](const QJsonObject& result) {
        Q_EMIT appRunFinished(ticket, result);
        call->deleteLater();
    });
    connect(call, &ToolCall::cancelled, call, &QObject::deleteLater);
    connect(m_server.get(), &McpServer::shutDown, call, &ToolCall::cancel);
}

void EmbeddedServerWorker::shutdown()
{
    if (m_stopped) {
        Q_EMIT stopped(); // asked again by a caller that may have missed it
        return;
    }
    if (m_shuttingDown)
        return;
    m_shuttingDown = true;
    m_statusTimer.stop();
    if (!m_server) {
        m_stopped = true;
        Q_EMIT stopped();
        return;
    }
    stopHttpTransport();
    // App runs are children of this worker, not of a session: they end with the runner, whose
    // shutdown kills their containers.
    const auto appCalls = findChildren<ToolCall*>(Qt::FindDirectChildrenOnly);
    for (ToolCall* call : appCalls)
        call->cancel();
    m_server->shutdown();
}

void EmbeddedServerWorker::publishStatus()
{
    ServerStatus status;
    status.running = m_server && !m_shuttingDown;
    status.httpUrl = m_httpUrl;
    if (m_server) {
        for (const McpDispatcher* session : m_server->sessions()) {
            ServerStatus::Session info;
            info.transport = session->transport();
            info.sessionId = session->sessionId();
            info.clientName = session->clientInfo().value(QLatin1String("name")).toString();
            info.clientVersion = session->clientInfo().value(QLatin1String("version")).toString();
            info.runningCalls = session->runningCallCount();
            status.sessions.append(info);
        }
        // Runs started from the app itself are this worker's children, in no session.
        status.runningCalls =
            m_server->runningCallCount() +
            static_cast<int>(findChildren<ToolCall*>(Qt::FindDirectChildrenOnly).size());
        status.pendingApprovals = m_server->approvals().pendingCount();
    }
    if (status == m_lastStatus)
        return;
    m_lastStatus = status;
    Q_EMIT statusChanged(status);
}

} // namespace csm
