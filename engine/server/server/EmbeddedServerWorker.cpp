#include "server/EmbeddedServerWorker.h"

#include "approval/CallApprovals.h"
#include "core/Logging.h"
#include "egress/EgressQuestions.h"
#include "mcp/CallContext.h"
#include "mcp/McpDispatcher.h"
#include "mcp/ToolCall.h"
#include "mcp/ToolResult.h"
#include "sandbox/InterpreterSessions.h"
#include "server/HttpServing.h"
#include "server/McpServer.h"
#include "server/RunHistoryRecorder.h"
#include "server/StdioServing.h"

#include <utility>

namespace csm {

EmbeddedServerWorker::EmbeddedServerWorker(ServerOptions options)
    : m_options(std::move(options))
{}

EmbeddedServerWorker::~EmbeddedServerWorker()
{
    // The transports feed the server's sessions: they go first.
    m_http.reset();
    m_stdio.reset();
    m_server.reset();
}

void EmbeddedServerWorker::start()
{
    m_server = std::make_unique<McpServer>(m_options);
    CallApprovals& approvals = m_server->approvals();
    connect(&approvals, &CallApprovals::requested, this, &EmbeddedServerWorker::approvalRequested);
    connect(&approvals, &CallApprovals::settled, this, &EmbeddedServerWorker::approvalSettled);
    connect(&approvals, &CallApprovals::requested, this, &EmbeddedServerWorker::schedulePublish);
    connect(&approvals, &CallApprovals::settled, this, &EmbeddedServerWorker::schedulePublish);
    // The app is here to answer: ask mode asks (a headless server refuses instead).
    EgressQuestions& questions = m_server->egressQuestions();
    connect(&questions, &EgressQuestions::asked, this, &EmbeddedServerWorker::egressQuestionAsked);
    connect(&questions, &EgressQuestions::settled, this,
            &EmbeddedServerWorker::egressQuestionSettled);
    m_server->askAboutEgress(true);
    connect(m_server.get(), &McpServer::sessionsChanged, this,
            &EmbeddedServerWorker::schedulePublish);
    connect(m_server.get(), &McpServer::shutdownFinished, this, [this] {
        m_stopped = true;
        Q_EMIT stopped();
    });
    publishStatus();
}

void EmbeddedServerWorker::serveStdio()
{
    if (!m_server || m_stdio)
        return;
    m_stdio = std::make_unique<StdioServing>(*m_server);
    connect(m_stdio.get(), &StdioServing::closed, this, [this] {
        qCInfo(lcServer) << "the stdio client closed its end";
        m_stdio->closeSession();
        Q_EMIT stdioClosed();
    });
    m_stdio->start();
}

void EmbeddedServerWorker::startHttp(const http::HttpServerConfig& config)
{
    if (!m_server || m_shuttingDown)
        return;
    stopHttpTransport();
    m_http = std::make_unique<HttpServing>(*m_server, config);
    connect(m_http.get(), &HttpServing::listening, this, [this](const QUrl& url) {
        Q_EMIT httpListening(url);
        publishStatus();
    });
    connect(m_http.get(), &HttpServing::failed, this, [this](const QString& error) {
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
        m_http->stop();
    m_http.reset();
    publishStatus();
}

void EmbeddedServerWorker::setApproval(bool required, int timeoutMs)
{
    if (!m_server)
        return;
    m_server->approvals().setTimeoutMs(timeoutMs);
    m_server->approvals().setRequired(required);
    // The person's time to answer is the same for both kinds of question.
    m_server->egressQuestions().setTimeoutMs(timeoutMs);
}

void EmbeddedServerWorker::answerEgressQuestion(quint64 id, bool allow)
{
    if (m_server)
        m_server->egressQuestions().answer(id, allow);
}

void EmbeddedServerWorker::answerApproval(quint64 id, bool approved)
{
    if (m_server)
        m_server->approvals().answer(id, approved);
}

void EmbeddedServerWorker::endInterpreterSession(const QString& key)
{
    if (m_server)
        m_server->interpreterSessions().endByKey(key, QStringLiteral("ended in the desktop app"));
}

void EmbeddedServerWorker::stopRun(qint64 runId)
{
    RunHistoryRecorder* history = m_server ? m_server->history() : nullptr;
    Q_EMIT runStopAnswered(runId, history && history->stop(runId));
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
    connect(m_server.get(), &McpServer::shutdownFinished, call, &ToolCall::cancel);
    // Counted in the status while it is this worker's child: until deleted.
    connect(call, &QObject::destroyed, this, &EmbeddedServerWorker::schedulePublish);
    schedulePublish();
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

void EmbeddedServerWorker::schedulePublish()
{
    if (m_publishScheduled || m_shuttingDown)
        return;
    m_publishScheduled = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_publishScheduled = false;
            // Once shutting down the status says "not running" until stopped() clears it.
            if (!m_shuttingDown)
                publishStatus();
        },
        Qt::QueuedConnection);
}

void EmbeddedServerWorker::publishStatus()
{
    ServerStatus status;
    status.running = m_server && !m_shuttingDown;
    status.httpUrl = m_http ? m_http->url() : QUrl();
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
        for (const InterpreterSessions::Entry& entry : m_server->interpreterSessions().listAll()) {
            ServerStatus::InterpreterSession info;
            info.key = entry.key;
            info.name = entry.name;
            info.language = LanguageTraits::id(entry.language);
            info.transport = entry.transport;
            info.clientName = entry.clientName;
            info.cells = entry.cells;
            info.running = entry.running;
            info.memoryBytes = entry.memoryBytes;
            info.startedAt = entry.startedAt;
            info.lastActiveAt = entry.lastActiveAt;
            status.interpreterSessions.append(info);
        }
    }
    if (status == m_lastStatus)
        return;
    m_lastStatus = status;
    Q_EMIT statusChanged(status);
}

} // namespace csm
