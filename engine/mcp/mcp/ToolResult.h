#pragma once

#include <QJsonObject>
#include <QString>

// The shapes of a tools/call result (MCP "CallToolResult") that every tool shares.
namespace csm::ToolResult {

// {"type": "text", "text": text}: one item of a result's content.
QJsonObject textContent(const QString& text);

// A result the model reads as a failed call: `message` as its text content and isError set.
QJsonObject error(const QString& message);

} // namespace csm::ToolResult
