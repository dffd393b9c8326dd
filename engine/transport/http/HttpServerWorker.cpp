#include "transport/http/HttpServerWorker.h"

#include "core/Logging.h"
#include "transport/http/HttpServer.h"
#include "transport/http/McpHttpEndpoint.h"

#include <QHostAddress>

namespace csm::http {

HttpServerWorker::HttpServerWorker(HttpServerConfig config, QObject* parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_endpoint(new McpHttpEndpoint(m_config, this))
{
    HttpServer::Limits limits;
    limits.request.maxBodyBytes = m_config.maxRequestBytes;
    limits.timeouts.idleMs = m_config.idleTimeoutSeconds * 1000;
    limits.timeouts.requestMs = m_config.requestTimeoutSeconds * 1000;
    limits.maxConnections = m_config.maxConnections;
    m_server = new HttpServer(*m_endpoint, limits, this);
}

HttpServerWorker::~HttpServerWorker()
{
    delete m_server;
}

void HttpServerWorker::listen()
{
    QString host = m_config.host;
    if (host == QLatin1String("localhost"))
        host = QStringLiteral("127.0.0.1");
    const QHostAddress address(host);
    if (address.isNull()) {
        Q_EMIT failed(QStringLiteral("cannot listen on \"%1\": not an IP address").arg(host));
        return;
    }
    if (!m_server->listen(address, m_config.port)) {
        Q_EMIT failed(QStringLiteral("cannot listen on %1 port %2: %3")
                          .arg(host)
                          .arg(m_config.port)
                          .arg(m_server->errorString()));
        return;
    }
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(address.toString());
    url.setPort(m_server->serverPort());
    url.setPath(m_config.path);
    Q_EMIT listening(url);
}

void HttpServerWorker::stop()
{
    m_server->close();
    m_endpoint->closeAllSessions();
}

} // namespace csm::http
