#pragma once

#include "transport/http/HttpServerConfig.h"

#include <QObject>
#include <QUrl>

namespace csm {
class FileContentWatcher;
}

namespace csm::http {

class HttpServer;
class McpHttpEndpoint;

// The transport's objects on its thread: the MCP endpoint and the HTTP server in front of it.
// It listens only where HttpListenPolicy allows (failed() says why not), and follows the token
// file the token came from, if any: a new token there is the one clients must send.
class HttpServerWorker final : public QObject
{
    Q_OBJECT

public:
    explicit HttpServerWorker(HttpServerConfig config, QObject* parent = nullptr);
    ~HttpServerWorker() override;

    void listen();
    void stop();
    McpHttpEndpoint& endpoint() { return *m_endpoint; }

Q_SIGNALS:
    void listening(const QUrl& url);
    void failed(const QString& error);

private:
    void followTokenFile();

    HttpServerConfig m_config;
    // Children, so that moveToThread() takes them along. The server goes first: closing its
    // connections tells the endpoint, which must still exist.
    McpHttpEndpoint* m_endpoint;
    HttpServer* m_server;
    FileContentWatcher* m_tokenFile = nullptr;
};

} // namespace csm::http
