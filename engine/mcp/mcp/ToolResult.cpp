#include "mcp/ToolResult.h"

#include <QJsonArray>

namespace csm::ToolResult {

QJsonObject textContent(const QString& text)
{
    return {{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}};
}

QJsonObject error(const QString& message)
{
    return {
        {QStringLiteral("content"), QJsonArray{textContent(message)}},
        {QStringLiteral("isError"), true},
    };
}

} // namespace csm::ToolResult
