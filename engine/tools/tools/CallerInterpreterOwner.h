#pragma once

#include "core/Expected.h"
#include "mcp/CallContext.h"
#include "sandbox/InterpreterOwner.h"

namespace csm {

// Whose interpreter sessions a call's are: its MCP client, told apart by the transport and the
// MCP session (stdio has one client; HTTP one per Mcp-Session-Id).
class CallerInterpreterOwner final
{
public:
    // Fails, for the model, for an HTTP call without an MCP session: its calls cannot be told
    // apart from another client's.
    static Expected<InterpreterOwner> of(const CallContext& context);
    // The owner key of the calls of one MCP session.
    static QString keyOf(const QString& transport, const QString& sessionId);
};

} // namespace csm
