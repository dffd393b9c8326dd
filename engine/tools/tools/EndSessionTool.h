#pragma once

#include "mcp/Tool.h"

namespace csm {

class SessionRegistry;

// end_session: ends one of the caller's sessions (its interpreter, state and container).
class EndSessionTool final : public Tool
{
public:
    explicit EndSessionTool(SessionRegistry& sessions);

    QString name() const override;
    QJsonObject definition() const override;
    ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                    QObject* parent) override;

private:
    SessionRegistry& m_sessions;
};

} // namespace csm
