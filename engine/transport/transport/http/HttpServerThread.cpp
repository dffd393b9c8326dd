#include "transport/http/HttpServerThread.h"

#include "transport/http/HttpServerWorker.h"

namespace csm::http {

HttpServerThread::HttpServerThread(HttpServerConfig config, QObject* parent)
    : QObject(parent)
    , m_worker(new HttpServerWorker(std::move(config)))
{
    m_thread.setObjectName(QStringLiteral("csm-http"));
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &HttpServerWorker::listening, this, &HttpServerThread::listening);
    connect(m_worker, &HttpServerWorker::failed, this, &HttpServerThread::failed);
}

HttpServerThread::~HttpServerThread()
{
    stop();
    m_thread.quit();
    m_thread.wait();
}

void HttpServerThread::start()
{
    m_thread.start();
    QMetaObject::invokeMethod(m_worker, &HttpServerWorker::listen, Qt::QueuedConnection);
}

void HttpServerThread::stop()
{
    if (m_stopped || !m_thread.isRunning())
        return;
    m_stopped = true;
    // Blocking: when this returns no connection is open, so nothing reaches a session after.
    QMetaObject::invokeMethod(m_worker, &HttpServerWorker::stop, Qt::BlockingQueuedConnection);
}

McpHttpEndpoint& HttpServerThread::endpoint()
{
    return m_worker->endpoint();
}

} // namespace csm::http
