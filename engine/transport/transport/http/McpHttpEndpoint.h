#pragma once

#include "transport/http/HttpAccessPolicy.h"
#include "transport/http/HttpRequestHandler.h"
#include "transport/http/HttpServerConfig.h"
#include "transport/http/HttpSession.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QTimer>

#include <map>
#include <optional>

namespace csm::http {

struct HttpResponse;

// MCP's Streamable HTTP transport (one endpoint, e.g. /mcp) on top of HttpServer: checks who
// is asking (Host, Origin, token), frames messages (POST in; JSON or SSE out; GET stream;
// DELETE), and keeps the sessions. It does no MCP itself: each session's messages go out through
// messageReceived() to that session's McpDispatcher, which may live on another thread, and its
// replies come back through deliver(), which routes each to the connection that waits for it.
class McpHttpEndpoint final : public QObject, public HttpRequestHandler
{
    Q_OBJECT

public:
    explicit McpHttpEndpoint(const HttpServerConfig& config, QObject* parent = nullptr);
    ~McpHttpEndpoint() override;

    // Host, Origin and token (HttpAccessPolicy); refusals are logged.
    std::optional<HttpResponse> admit(const HttpRequest& head) override;
    void handleRequest(HttpConnection& connection, const HttpRequest& request) override;
    void connectionClosed(HttpConnection& connection) override;

    // A message from session `sessionId`'s dispatcher: a response, or a notification.
    void deliver(const QString& sessionId, const QJsonObject& message);
    // From the next request on, clients must send this token instead (the token file changed).
    void setAuthToken(const QString& token);
    // Ends every session (the server is stopping).
    void closeAllSessions();
    int sessionCount() const { return static_cast<int>(m_sessions.size()); }

Q_SIGNALS:
    void sessionOpened(const QString& sessionId);
    void messageReceived(const QString& sessionId, const QJsonObject& message);
    // The session ended (DELETE, expiry, shutdown): its running calls are to be cancelled.
    void sessionClosed(const QString& sessionId);

private:
    struct Exchange
    {
        QString sessionId;
        QByteArray requestKey;
    };

    void handlePost(HttpConnection& connection, const HttpRequest& request);
    void handleGet(HttpConnection& connection, const HttpRequest& request);
    void handleDelete(HttpConnection& connection, const HttpRequest& request);
    // The session a request names, or the refusal to send (400, 404, or 400 for an unsupported
    // MCP-Protocol-Version).
    HttpSession* sessionFor(const HttpRequest& request, std::optional<HttpResponse>* refusal);
    void acceptRequest(HttpConnection& connection, HttpSession& session, const QJsonObject& message,
                       bool initialize);
    void respondTo(HttpSession& session, const QJsonObject& response);
    void endPendingRequest(HttpSession& session, const QByteArray& requestKey);
    // By value: callers pass a session's own id, which this erases.
    void closeSession(QString sessionId, const QString& reason);
    void expireIdleSessions();
    void sendKeepAlives();
    QString newSessionId() const;

    HttpServerConfig m_config;
    HttpAccessPolicy m_access;
    // A std::map: a session's address stays valid while others come and go.
    std::map<QString, HttpSession> m_sessions;
    // Which session and request each connection waits on (one request per connection at a
    // time), and which connections carry a session's GET stream.
    QHash<HttpConnection*, Exchange> m_exchanges;
    QHash<HttpConnection*, QString> m_eventStreams;
    QTimer m_expiryTimer;
    QTimer m_keepAliveTimer;
};

} // namespace csm::http
