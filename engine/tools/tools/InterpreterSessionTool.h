#pragma once

#include "mcp/Tool.h"

namespace csm {

class InterpreterSessions;
struct InterpreterOwner;

// A tool about the caller's own interpreter sessions (list_sessions, end_session): it answers at
// once, and sees only the sessions of the client that calls it (CallerInterpreterOwner).
class InterpreterSessionTool : public Tool
{
public:
    explicit InterpreterSessionTool(InterpreterSessions& sessions);

    ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                    QObject* parent) final;

protected:
    InterpreterSessions& sessions() const { return m_sessions; }
    // The CallToolResult for `arguments`; `owner` is null for a caller that can have no sessions
    // (an HTTP call without an MCP session).
    virtual QJsonObject answer(const QJsonObject& arguments, const InterpreterOwner* owner) = 0;

private:
    InterpreterSessions& m_sessions;
};

} // namespace csm
