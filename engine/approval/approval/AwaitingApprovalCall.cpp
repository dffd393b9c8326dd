#include "approval/AwaitingApprovalCall.h"

#include "approval/CallApprovals.h"
#include "mcp/Tool.h"
#include "mcp/ToolResult.h"

#include <utility>

namespace csm {

AwaitingApprovalCall::AwaitingApprovalCall(Tool& tool, QJsonObject arguments, CallContext context,
                                           CallApprovals& approvals, QObject* parent)
    : ToolCall(parent)
    , m_tool(tool)
    , m_arguments(std::move(arguments))
    , m_context(std::move(context))
    , m_approvals(&approvals)
{
    ApprovalRequest request;
    request.tool = m_context.tool;
    request.code = m_tool.reviewText(m_arguments);
    request.files = m_tool.reviewFiles(m_arguments);
    request.clientName = m_context.clientName;
    request.transport = m_context.transport;
    // The answer always comes later, from the event loop: the dispatcher connects to our
    // signals after start() returns.
    m_requestId =
        approvals.ask(request, [self = QPointer(this)](bool approved, const QString& reason) {
            if (self)
                self->onDecided(approved, reason);
        });
}

AwaitingApprovalCall::~AwaitingApprovalCall()
{
    if (m_waiting && m_approvals)
        m_approvals->withdraw(m_requestId);
}

void AwaitingApprovalCall::onDecided(bool approved, const QString& reason)
{
    m_waiting = false;
    if (m_cancelled)
        return;
    if (!approved) {
        Q_EMIT finished(ToolResult::error(reason));
        return;
    }
    m_call = m_tool.start(m_arguments, m_context, this);
    connect(m_call, &ToolCall::finished, this, &ToolCall::finished);
    connect(m_call, &ToolCall::cancelled, this, &ToolCall::cancelled);
}

void AwaitingApprovalCall::cancel()
{
    if (m_cancelled)
        return;
    m_cancelled = true;
    if (m_call) {
        m_call->cancel();
        return;
    }
    if (m_waiting && m_approvals) {
        m_waiting = false;
        m_approvals->withdraw(m_requestId);
    }
    QMetaObject::invokeMethod(this, &ToolCall::cancelled, Qt::QueuedConnection);
}

QString AwaitingApprovalCall::progressMessage() const
{
    if (m_call)
        return m_call->progressMessage();
    return m_waiting ? QStringLiteral("waiting for the user to approve the call in Code Sandbox")
                     : QString();
}

} // namespace csm
