#pragma once

#include "mcp/CallContext.h"
#include "mcp/ToolCall.h"

#include <QJsonObject>
#include <QPointer>

namespace csm {

class CallApprovals;
class Tool;

// A call that asks for approval first, then runs as the tool's own call (whose signals it
// passes on), or ends with the denial as a tool error.
class AwaitingApprovalCall final : public ToolCall
{
    Q_OBJECT

public:
    AwaitingApprovalCall(Tool& tool, QJsonObject arguments, CallContext context,
                         CallApprovals& approvals, QObject* parent);
    ~AwaitingApprovalCall() override;

    void cancel() override;
    QString progressMessage() const override;

private:
    void onDecided(bool approved, const QString& reason);

    Tool& m_tool;
    QJsonObject m_arguments;
    CallContext m_context;
    QPointer<CallApprovals> m_approvals;
    quint64 m_requestId = 0;
    bool m_waiting = true;
    bool m_cancelled = false;
    ToolCall* m_call = nullptr; // once approved
};

} // namespace csm
