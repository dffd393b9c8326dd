#pragma once

#include "mcp/Tool.h"

namespace csm {

class InterpreterSessions;

// list_sessions: the caller's live sessions (name, language, age, idle time, cells).
class ListInterpreterSessionsTool final : public Tool
{
public:
    explicit ListInterpreterSessionsTool(InterpreterSessions& sessions);

    QString name() const override;
    QJsonObject definition() const override;
    ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                    QObject* parent) override;

private:
    InterpreterSessions& m_sessions;
};

} // namespace csm
