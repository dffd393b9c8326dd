#include "mcp/ToolRegistry.h"

#include "mcp/Tool.h"

namespace csm {

ToolRegistry::ToolRegistry() = default;
ToolRegistry::~ToolRegistry() = default;

void ToolRegistry::add(std::unique_ptr<Tool> tool)
{
    m_tools.push_back(std::move(tool));
}

Tool* ToolRegistry::find(const QString& nameOrAlias) const
{
    for (const auto& tool : m_tools) {
        if (tool->name() == nameOrAlias || tool->aliases().contains(nameOrAlias))
            return tool.get();
    }
    return nullptr;
}

QJsonArray ToolRegistry::definitions() const
{
    QJsonArray list;
    for (const auto& tool : m_tools)
        list.append(tool->definition());
    return list;
}

} // namespace csm
