#include "transport/http/HttpServer.h"

#include "core/Logging.h"
#include "transport/http/HttpRequestHandler.h"

#include <QTcpSocket>

namespace csm::http {

HttpServer::HttpServer(HttpRequestHandler& handler, Limits limits, QObject* parent)
    : QObject(parent)
    , m_handler(handler)
    , m_limits(limits)
    , m_server(this)
{
    connect(&m_server, &QTcpServer::newConnection, this, &HttpServer::acceptConnections);
}

HttpServer::~HttpServer()
{
    close();
}

bool HttpServer::listen(const QHostAddress& address, quint16 port)
{
    return m_server.listen(address, port);
}

void HttpServer::close()
{
    m_server.close();
    const QSet<HttpConnection*> connections = m_connections;
    for (HttpConnection* connection : connections)
        connection->abort();
}

void HttpServer::acceptConnections()
{
    while (QTcpSocket* socket = m_server.nextPendingConnection()) {
        if (m_connections.size() >= m_limits.maxConnections) {
            // Refused with a reason rather than a reset the client cannot explain.
            qCWarning(lcHttp) << "refusing a connection: already" << m_connections.size() << "open";
            socket->write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                          "Retry-After: 1\r\nConnection: close\r\n\r\n");
            socket->disconnectFromHost();
            connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            continue;
        }
        // A response goes out in several writes (its head, then the body or each event of a
        // stream): with Nagle's algorithm each write after the first waits for the client's
        // ACK, which the client delays (40 ms on Linux). Requests are small and answered at once.
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        auto* connection = new HttpConnection(
            socket, m_limits.request, m_limits.timeouts,
            [this](const HttpRequest& head) { return m_handler.admit(head); }, this);
        m_connections.insert(connection);
        connect(connection, &HttpConnection::requestReceived, this,
                [this](HttpConnection* from, const HttpRequest& request) {
                    m_handler.handleRequest(*from, request);
                });
        connect(connection, &HttpConnection::closed, this, &HttpServer::onConnectionClosed);
    }
}

void HttpServer::onConnectionClosed(HttpConnection* connection)
{
    if (m_connections.remove(connection))
        m_handler.connectionClosed(*connection);
}

} // namespace csm::http
