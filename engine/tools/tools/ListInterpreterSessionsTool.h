#pragma once

#include "mcp/Tool.h"

namespace csm {

class InterpreterSessionRegistry;

// list_sessions: the caller's live sessions (name, language, age, idle time, cells).
class ListInterpreterSessionsTool final : public Tool
{
public:
    explicit ListInterpreterSessionsTool(InterpreterSessionRegistry& sessions);

    QString name() const override;
    QJsonObject definition() const override;
    ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                    QObject* parent) override;

private:
    InterpreterSessionRegistry& m_sessions;
};

} // namespace csm
