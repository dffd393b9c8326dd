#pragma once

#include "mcp/Tool.h"

namespace csm {

class InterpreterSessions;

// end_session: ends one of the caller's sessions (its interpreter, state and container).
class EndInterpreterSessionTool final : public Tool
{
public:
    explicit EndInterpreterSessionTool(InterpreterSessions& sessions);

    QString name() const override;
    QJsonObject definition() const override;
    ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                    QObject* parent) override;

private:
    InterpreterSessions& m_sessions;
};

} // namespace csm
