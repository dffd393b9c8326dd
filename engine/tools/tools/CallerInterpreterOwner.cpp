#include "tools/CallerInterpreterOwner.h"

namespace csm {

Expected<InterpreterOwner> CallerInterpreterOwner::of(const CallContext& context)
{
    if (context.transport == QLatin1String("http") && context.sessionId.isEmpty()) {
        return Unexpected(QStringLiteral("Sessions need an MCP session (the Mcp-Session-Id "
                                         "header): without one, calls cannot be told apart."));
    }
    return InterpreterOwner{keyOf(context.transport, context.sessionId), context.transport,
                            context.clientName};
}

QString CallerInterpreterOwner::keyOf(const QString& transport, const QString& sessionId)
{
    return transport + QLatin1Char(':') + sessionId;
}

} // namespace csm
