#include "tools/InterpreterSessionTool.h"

#include "mcp/ImmediateToolCall.h"
#include "tools/CallerInterpreterOwner.h"

namespace csm {

InterpreterSessionTool::InterpreterSessionTool(InterpreterSessions& sessions)
    : m_sessions(sessions)
{}

ToolCall* InterpreterSessionTool::start(const QJsonObject& arguments, const CallContext& context,
                                        QObject* parent)
{
    const Expected<InterpreterOwner> owner = CallerInterpreterOwner::of(context);
    return new ImmediateToolCall(answer(arguments, owner ? &*owner : nullptr), parent);
}

} // namespace csm
