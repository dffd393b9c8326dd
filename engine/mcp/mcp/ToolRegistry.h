#pragma once

#include <QJsonArray>
#include <QString>

#include <memory>
#include <vector>

namespace csm {

class Tool;

// The tools a server offers, found by name or alias.
class ToolRegistry final
{
public:
    ToolRegistry();
    ~ToolRegistry();
    ToolRegistry(const ToolRegistry&) = delete;
    ToolRegistry& operator=(const ToolRegistry&) = delete;

    void add(std::unique_ptr<Tool> tool);
    Tool* find(const QString& nameOrAlias) const;
    // Definitions for tools/list: each tool once, aliases left out.
    QJsonArray definitions() const;

private:
    std::vector<std::unique_ptr<Tool>> m_tools;
};

} // namespace csm
