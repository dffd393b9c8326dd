#pragma once

#include "mcp/Tool.h"

namespace csm {

class SessionRegistry;

// list_sessions: the caller's live sessions (name, language, age, idle time, cells).
class ListSessionsTool final : public Tool
{
public:
    explicit ListSessionsTool(SessionRegistry& sessions);

    QString name() const override;
    QJsonObject definition() const override;
    ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                    QObject* parent) override;

private:
    SessionRegistry& m_sessions;
};

} // namespace csm
