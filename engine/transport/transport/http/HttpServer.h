#pragma once

#include "transport/http/HttpConnection.h"
#include "transport/http/HttpRequestParser.h"

#include <QHostAddress>
#include <QObject>
#include <QSet>
#include <QTcpServer>

namespace csm::http {

class HttpRequestHandler;

// A small HTTP/1.1 server on QTcpServer. QHttpServer (Qt 6.4, a technology preview) was
// considered and not used: it buffers a whole request body before any handler sees it, so a
// body limit cannot refuse an oversized request early; it has no timeouts for idle connections
// or half-sent requests, no cap on connections, and does not tell a handler that the client has
// gone while its (streamed) response is still owed, which is how a call's container is killed
// when its client disconnects.
class HttpServer final : public QObject
{
    Q_OBJECT

public:
    struct Limits
    {
        HttpRequestParser::Limits request;
        HttpConnection::Timeouts timeouts;
        int maxConnections = 256;
    };

    HttpServer(HttpRequestHandler& handler, Limits limits, QObject* parent = nullptr);
    ~HttpServer() override;

    bool listen(const QHostAddress& address, quint16 port);
    QString errorString() const { return m_server.errorString(); }
    quint16 serverPort() const { return m_server.serverPort(); }
    // Stops listening and closes every connection.
    void close();

private:
    void acceptConnections();
    void onConnectionClosed(HttpConnection* connection);

    HttpRequestHandler& m_handler;
    Limits m_limits;
    QTcpServer m_server;
    QSet<HttpConnection*> m_connections;
};

} // namespace csm::http
