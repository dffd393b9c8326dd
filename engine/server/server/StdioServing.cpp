#include "server/StdioServing.h"

#include "core/Logging.h"
#include "mcp/JsonRpc.h"
#include "mcp/McpDispatcher.h"
#include "server/McpServer.h"
#include "transport/StdioTransport.h"

namespace csm {

StdioServing::StdioServing(McpServer& server, QObject* parent)
    : QObject(parent)
    , m_server(server)
    , m_transport(std::make_unique<StdioTransport>())
    , m_session(server.openSession(QStringLiteral("stdio")))
{
    StdioTransport* transport = m_transport.get();
    connect(transport, &StdioTransport::messageReceived, m_session.data(),
            &McpDispatcher::handleMessage);
    // The line was skipped unread, so its id is unknown: the client learns why it gets no answer.
    connect(transport, &StdioTransport::messageTooLarge, transport, [transport] {
        transport->send(jsonrpc::error(QJsonValue::Null, jsonrpc::ErrorCode::InvalidRequest,
                                       QStringLiteral("Message larger than %1 MiB refused")
                                           .arg(StdioTransport::kMaxMessageBytes / (1024 * 1024))));
    });
    connect(m_session.data(), &McpDispatcher::outgoing, transport, &StdioTransport::send);
    connect(transport, &StdioTransport::closed, this, &StdioServing::closed);
}

StdioServing::~StdioServing() = default;

void StdioServing::start()
{
    m_transport->start();
    qCInfo(lcServer) << "serving MCP on stdio";
}

void StdioServing::closeSession()
{
    m_server.closeSession(m_session);
}

} // namespace csm
