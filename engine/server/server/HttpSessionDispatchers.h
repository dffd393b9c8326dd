#pragma once

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QString>

namespace csm {

class McpDispatcher;
class McpServer;

// The server's side of the HTTP transport's sessions: one McpDispatcher per session id, on the
// server's thread. The transport (on its own thread) opens, feeds and closes sessions through
// queued connections, and gets each session's messages back through outgoing().
class HttpSessionDispatchers final : public QObject
{
    Q_OBJECT

public:
    explicit HttpSessionDispatchers(McpServer& server, QObject* parent = nullptr);
    ~HttpSessionDispatchers() override;

    void openSession(const QString& sessionId);
    void deliver(const QString& sessionId, const QJsonObject& message);
    // Cancels the session's running calls (their containers are removed) and forgets it.
    void closeSession(const QString& sessionId);
    // Closes every session (the transport is going away).
    void closeAll();
    int sessionCount() const { return static_cast<int>(m_sessions.size()); }

Q_SIGNALS:
    void outgoing(const QString& sessionId, const QJsonObject& message);

private:
    McpServer& m_server;
    QHash<QString, QPointer<McpDispatcher>> m_sessions;
};

} // namespace csm
