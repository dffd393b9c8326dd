#include "approval/ApprovalGatedTool.h"

#include "approval/AwaitingApprovalCall.h"
#include "approval/CallApprovals.h"

#include <utility>

namespace csm {

ApprovalGatedTool::ApprovalGatedTool(std::unique_ptr<Tool> tool, CallApprovals& approvals)
    : m_tool(std::move(tool))
    , m_approvals(approvals)
{}

ToolCall* ApprovalGatedTool::start(const QJsonObject& arguments, const CallContext& context,
                                   QObject* parent)
{
    if (!m_approvals.isRequired())
        return m_tool->start(arguments, context, parent);
    return new AwaitingApprovalCall(*m_tool, arguments, context, m_approvals, parent);
}

} // namespace csm
