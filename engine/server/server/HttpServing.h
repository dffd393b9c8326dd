#pragma once

#include "transport/http/HttpServerConfig.h"

#include <QObject>
#include <QUrl>

#include <memory>

namespace csm {

class McpServer;
class HttpSessionDispatchers;
namespace http {
class HttpServerThread;
}

// MCP over Streamable HTTP: the transport on its own thread, each of its sessions one session of
// the server. Both the headless server and the desktop app serve HTTP through it; what a failure
// to listen means (exit, or a message on the Server page) is theirs to decide.
class HttpServing final : public QObject
{
    Q_OBJECT

public:
    HttpServing(McpServer& server, http::HttpServerConfig config, QObject* parent = nullptr);
    // Stops the transport; the server's sessions are left to the server's own end.
    ~HttpServing() override;

    // Listens; listening() or failed() follows.
    void start();
    // No new request, every open stream ends, then every HTTP session's running calls are
    // cancelled (their containers removed). Before McpServer::shutdown(), so that no request
    // comes in while the server winds down.
    void stop();
    // Where clients connect; empty until listening() and after stop().
    QUrl url() const { return m_url; }

Q_SIGNALS:
    void listening(const QUrl& url);
    void failed(const QString& error);

private:
    // The transport feeds the sessions: declared after them, so that it goes first.
    std::unique_ptr<HttpSessionDispatchers> m_sessions;
    std::unique_ptr<http::HttpServerThread> m_transport;
    QUrl m_url;
};

} // namespace csm
