#pragma once

#include "mcp/Tool.h"

#include <memory>

namespace csm {

class CallApprovals;

// A tool whose calls wait for the user's approval while approval mode is on (CallApprovals);
// otherwise it is the wrapped tool, unchanged. A denied call is answered with a tool error
// that tells the assistant why; its code never runs.
class ApprovalGatedTool final : public Tool
{
public:
    ApprovalGatedTool(std::unique_ptr<Tool> tool, CallApprovals& approvals);

    QString name() const override { return m_tool->name(); }
    QStringList aliases() const override { return m_tool->aliases(); }
    QJsonObject definition() const override { return m_tool->definition(); }
    QString reviewText(const QJsonObject& arguments) const override
    {
        return m_tool->reviewText(arguments);
    }
    QList<ReviewedFile> reviewFiles(const QJsonObject& arguments) const override
    {
        return m_tool->reviewFiles(arguments);
    }
    ToolCall* start(const QJsonObject& arguments, const CallContext& context,
                    QObject* parent) override;

private:
    std::unique_ptr<Tool> m_tool;
    CallApprovals& m_approvals;
};

} // namespace csm
