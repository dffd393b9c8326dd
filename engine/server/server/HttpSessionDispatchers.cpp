#include "server/HttpSessionDispatchers.h"

#include "mcp/McpDispatcher.h"
#include "server/McpServer.h"

namespace csm {

HttpSessionDispatchers::HttpSessionDispatchers(McpServer& server, QObject* parent)
    : QObject(parent)
    , m_server(server)
{}

HttpSessionDispatchers::~HttpSessionDispatchers()
{
    for (const QPointer<McpDispatcher>& session : std::as_const(m_sessions)) {
        if (session)
            disconnect(session, nullptr, this, nullptr);
    }
}

void HttpSessionDispatchers::openSession(const QString& sessionId)
{
    if (m_sessions.contains(sessionId))
        return;
    McpDispatcher* session = m_server.openSession(QStringLiteral("http"), sessionId);
    connect(session, &McpDispatcher::outgoing, this,
            [this, sessionId](const QJsonObject& message) { Q_EMIT outgoing(sessionId, message); });
    m_sessions.insert(sessionId, session);
}

void HttpSessionDispatchers::deliver(const QString& sessionId, const QJsonObject& message)
{
    if (McpDispatcher* session = m_sessions.value(sessionId))
        session->handle(message);
}

void HttpSessionDispatchers::closeSession(const QString& sessionId)
{
    const QPointer<McpDispatcher> session = m_sessions.take(sessionId);
    if (!session)
        return;
    // A cancelled call sends nothing, and nothing may reach a transport that forgot the session.
    disconnect(session, &McpDispatcher::outgoing, this, nullptr);
    m_server.closeSession(session);
}

void HttpSessionDispatchers::closeAll()
{
    const QStringList ids = m_sessions.keys();
    for (const QString& id : ids)
        closeSession(id);
}

} // namespace csm
