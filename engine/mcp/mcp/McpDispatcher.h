#pragma once

#include "mcp/CallContext.h"
#include "mcp/ClientResultShape.h"
#include "mcp/ProgressNotifier.h"
#include "mcp/ServerIdentity.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QSet>

namespace csm {

class ToolCall;
class ToolRegistry;

// The transport-free MCP core: JSON-RPC messages in (handleMessage), messages out (outgoing).
// Tool calls run concurrently; a running call never delays ping or another request.
class ResourceProvider;

class McpDispatcher final : public QObject
{
    Q_OBJECT

public:
    // `transport` ("stdio", "http") and `sessionId` (HTTP's Mcp-Session-Id) only describe the
    // session to the tools (CallContext); the dispatcher itself does not depend on them.
    McpDispatcher(const ToolRegistry& tools, ServerIdentity identity, QString transport = {},
                  QString sessionId = {}, QObject* parent = nullptr);
    ~McpDispatcher() override;

    // One framed message as received; malformed JSON is answered with a parse error.
    void handleMessage(const QByteArray& bytes);
    void handle(const QJsonObject& message);

    // Cancels every running call without answering it; idle() follows once all have cleaned up.
    void cancelAll();
    int runningCallCount() const { return static_cast<int>(m_alive.size()); }

    // What resources/read serves (may be null: no resources capability). Not owned; must
    // outlive the dispatcher.
    void setResources(const ResourceProvider* resources) { m_resources = resources; }

    // How often a call with a progressToken reports progress (tests make it faster).
    void setProgressTiming(ProgressNotifier::Timing timing) { m_progressTiming = timing; }

    QString negotiatedProtocolVersion() const { return m_protocolVersion; }
    QJsonObject clientInfo() const { return m_clientInfo; }
    QString transport() const { return m_transport; }
    QString sessionId() const { return m_sessionId; }

Q_SIGNALS:
    void outgoing(const QJsonObject& message);
    // No call is running any more (after cancelAll(), or when the last call ends).
    void idle();
    // initialize told who the client is (clientInfo()).
    void clientIdentified();
    // A call started or cleaned up (runningCallCount()).
    void runningCallCountChanged(int count);

private:
    void handleRequest(const QJsonValue& id, const QString& method, const QJsonObject& params);
    void handleNotification(const QString& method, const QJsonObject& params);
    QJsonObject initialize(const QJsonObject& params);
    void callTool(const QJsonValue& id, const QJsonObject& params);
    void readResource(const QJsonValue& id, const QJsonObject& params);
    // Who calls: this session's transport, id and client (no tool yet).
    CallContext callerContext() const;
    ClientResultShape resultShape() const;
    void forget(ToolCall* call);

    const ToolRegistry& m_tools;
    const ResourceProvider* m_resources = nullptr;
    ServerIdentity m_identity;
    QString m_transport;
    QString m_sessionId;
    QString m_protocolVersion;
    QJsonObject m_clientInfo;
    ProgressNotifier::Timing m_progressTiming;
    // Calls whose response is still owed, by request id (as compact JSON, so 1 and "1" differ).
    QHash<QByteArray, ToolCall*> m_awaitingResponse;
    // Every call still alive, answered or not (a cancelled call lives on until cleaned up).
    QSet<ToolCall*> m_alive;
};

} // namespace csm
