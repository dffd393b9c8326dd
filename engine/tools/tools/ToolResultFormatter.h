#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace csm {

struct ExecutionResult;

// Turns a sandbox run into an MCP CallToolResult: a readable text in `content` (what most
// clients show the model) and the same facts, typed, in `structuredContent`.
class ToolResultFormatter final
{
public:
    static QJsonObject format(const ExecutionResult& result);
    // A failure before any program ran (bad arguments, engine or image missing).
    // Program output as text: always valid UTF-8, each invalid byte sequence becoming U+FFFD.
    static QString decodeOutput(const QByteArray& bytes);
    // The same for output cut at the cap: a character the cut split in two is left out.
    static QString decodeTruncatedOutput(const QByteArray& bytes);
    // The outputSchema matching format()'s structuredContent.
    static QJsonObject outputSchema();
};

} // namespace csm
