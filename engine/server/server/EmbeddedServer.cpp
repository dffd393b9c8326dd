#include "server/EmbeddedServer.h"

#include "server/EmbeddedServerWorker.h"

#include <QDeadlineTimer>

#include <utility>

namespace csm {

namespace {
// McpServer's shutdown is bounded by 10 s; a little more for the thread to wind down.
constexpr int kJoinBudgetMs = 15'000;
} // namespace

EmbeddedServer::EmbeddedServer(ServerOptions options, QObject* parent)
    : EmbeddedServerEvents(parent)
    , m_worker(new EmbeddedServerWorker(std::move(options)))
{
    qRegisterMetaType<ServerStatus>();
    qRegisterMetaType<ApprovalRequest>();
    qRegisterMetaType<EgressQuestion>();
    m_thread.setObjectName(QStringLiteral("mcp-server"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    // Every connection from the worker is queued: its signals come from the server thread.
    connect(m_worker, &EmbeddedServerWorker::httpListening, this, &EmbeddedServer::httpListening);
    connect(m_worker, &EmbeddedServerWorker::httpFailed, this, &EmbeddedServer::httpFailed);
    connect(m_worker, &EmbeddedServerWorker::httpStopped, this, &EmbeddedServer::httpStopped);
    connect(m_worker, &EmbeddedServerWorker::stdioClosed, this, &EmbeddedServer::stdioClosed);
    connect(m_worker, &EmbeddedServerWorker::approvalRequested, this,
            &EmbeddedServer::approvalRequested);
    connect(m_worker, &EmbeddedServerWorker::approvalSettled, this,
            &EmbeddedServer::approvalSettled);
    connect(m_worker, &EmbeddedServerWorker::egressQuestionAsked, this,
            &EmbeddedServer::egressQuestionAsked);
    connect(m_worker, &EmbeddedServerWorker::egressQuestionSettled, this,
            &EmbeddedServer::egressQuestionSettled);
    connect(m_worker, &EmbeddedServerWorker::runStopAnswered, this,
            &EmbeddedServer::runStopAnswered);
    connect(m_worker, &EmbeddedServerWorker::statusChanged, this,
            [this](const ServerStatus& status) {
                m_status = status;
                Q_EMIT statusChanged(status);
            });
    connect(m_worker, &EmbeddedServerWorker::appRunFinished, this,
            [this](quint64 ticket, const QJsonObject& result) {
                if (auto done = m_appRuns.take(ticket))
                    done(result);
            });
    connect(m_worker, &EmbeddedServerWorker::stopped, this, [this] {
        m_stopped = true;
        m_status = {};
        m_thread.quit();
        Q_EMIT statusChanged(m_status);
        Q_EMIT stopped();
    });
}

EmbeddedServer::~EmbeddedServer()
{
    if (m_started) {
        if (!m_stopped) {
            // Nothing on this thread will run any more: wait for the worker's own signal through
            // a direct connection instead.
            connect(m_worker, &EmbeddedServerWorker::stopped, &m_thread, &QThread::quit,
                    Qt::DirectConnection);
            post([worker = m_worker] { worker->shutdown(); });
        }
        if (!m_thread.wait(QDeadlineTimer(kJoinBudgetMs))) {
            m_thread.quit();
            m_thread.wait();
        }
        // The thread's end deleted the worker (QThread::finished -> deleteLater).
    } else {
        delete m_worker; // never started
    }
}

template <typename Function>
void EmbeddedServer::post(Function function)
{
    QMetaObject::invokeMethod(m_worker, std::move(function), Qt::QueuedConnection);
}

void EmbeddedServer::start()
{
    if (m_started)
        return;
    m_started = true;
    m_thread.start();
    post([worker = m_worker] { worker->start(); });
}

void EmbeddedServer::serveStdio()
{
    m_servingStdio = true;
    post([worker = m_worker] { worker->serveStdio(); });
}

void EmbeddedServer::startHttp(const http::HttpServerConfig& config)
{
    post([worker = m_worker, config] { worker->startHttp(config); });
}

void EmbeddedServer::stopHttp()
{
    post([worker = m_worker] { worker->stopHttp(); });
}

void EmbeddedServer::setApproval(bool required, int timeoutMs)
{
    post([worker = m_worker, required, timeoutMs] { worker->setApproval(required, timeoutMs); });
}

void EmbeddedServer::answerApproval(quint64 id, bool approved)
{
    post([worker = m_worker, id, approved] { worker->answerApproval(id, approved); });
}

void EmbeddedServer::answerEgressQuestion(quint64 id, bool allow)
{
    post([worker = m_worker, id, allow] { worker->answerEgressQuestion(id, allow); });
}

void EmbeddedServer::endInterpreterSession(const QString& key)
{
    post([worker = m_worker, key] { worker->endInterpreterSession(key); });
}

void EmbeddedServer::stopRun(qint64 runId)
{
    post([worker = m_worker, runId] { worker->stopRun(runId); });
}

void EmbeddedServer::runFromApp(const QString& toolName, const QString& code,
                                std::function<void(const QJsonObject&)> done)
{
    const quint64 ticket = m_nextTicket++;
    m_appRuns.insert(ticket, std::move(done));
    post([worker = m_worker, ticket, toolName, code] {
        worker->runFromApp(ticket, toolName, code);
    });
}

void EmbeddedServer::shutdown()
{
    if (m_stopped || !m_thread.isRunning()) {
        m_stopped = true;
        return;
    }
    post([worker = m_worker] { worker->shutdown(); });
}

} // namespace csm
