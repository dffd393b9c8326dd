#include "server/HttpServing.h"

#include "core/Logging.h"
#include "server/HttpSessionDispatchers.h"
#include "transport/http/HttpServerThread.h"
#include "transport/http/McpHttpEndpoint.h"

#include <utility>

namespace csm {

HttpServing::HttpServing(McpServer& server, http::HttpServerConfig config, QObject* parent)
    : QObject(parent)
    , m_sessions(std::make_unique<HttpSessionDispatchers>(server))
    , m_transport(std::make_unique<http::HttpServerThread>(std::move(config)))
{
    http::McpHttpEndpoint& endpoint = m_transport->endpoint();
    HttpSessionDispatchers* sessions = m_sessions.get();
    // The endpoint lives on the transport's own thread: every connection below is queued.
    connect(&endpoint, &http::McpHttpEndpoint::sessionOpened, sessions,
            &HttpSessionDispatchers::openSession);
    connect(&endpoint, &http::McpHttpEndpoint::messageReceived, sessions,
            &HttpSessionDispatchers::deliver);
    connect(&endpoint, &http::McpHttpEndpoint::sessionClosed, sessions,
            &HttpSessionDispatchers::closeSession);
    connect(sessions, &HttpSessionDispatchers::outgoing, &endpoint,
            &http::McpHttpEndpoint::deliver);
    connect(m_transport.get(), &http::HttpServerThread::listening, this, [this](const QUrl& url) {
        m_url = url;
        qCInfo(lcServer).noquote() << "serving MCP on" << url.toString();
        Q_EMIT listening(url);
    });
    connect(m_transport.get(), &http::HttpServerThread::failed, this, &HttpServing::failed);
}

HttpServing::~HttpServing() = default;

void HttpServing::start()
{
    m_transport->start();
}

void HttpServing::stop()
{
    m_transport->stop();
    // The transport's own "session closed" messages are still queued: they would reach no one.
    m_sessions->closeAll();
    m_url.clear();
}

} // namespace csm
