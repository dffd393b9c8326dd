#include "clients/McpClient.h"

namespace csm {

QList<McpClient> McpClientTraits::all()
{
    return {McpClient::ClaudeDesktop, McpClient::GeminiCli, McpClient::VsCode, McpClient::Cursor};
}

QString McpClientTraits::id(McpClient client)
{
    switch (client) {
    case McpClient::ClaudeDesktop:
        return QStringLiteral("claude");
    case McpClient::GeminiCli:
        return QStringLiteral("gemini");
    case McpClient::VsCode:
        return QStringLiteral("vscode");
    case McpClient::Cursor:
        return QStringLiteral("cursor");
    }
    Q_UNREACHABLE();
}

std::optional<McpClient> McpClientTraits::fromId(const QString& id)
{
    const QString name = id.trimmed().toLower();
    for (const McpClient client : all()) {
        if (name == McpClientTraits::id(client))
            return client;
    }
    if (name == QLatin1String("claude-desktop"))
        return McpClient::ClaudeDesktop;
    if (name == QLatin1String("gemini-cli"))
        return McpClient::GeminiCli;
    if (name == QLatin1String("code") || name == QLatin1String("vs-code"))
        return McpClient::VsCode;
    return std::nullopt;
}

QString McpClientTraits::displayName(McpClient client)
{
    switch (client) {
    case McpClient::ClaudeDesktop:
        return QStringLiteral("Claude Desktop");
    case McpClient::GeminiCli:
        return QStringLiteral("Gemini CLI");
    case McpClient::VsCode:
        return QStringLiteral("VS Code");
    case McpClient::Cursor:
        return QStringLiteral("Cursor");
    }
    Q_UNREACHABLE();
}

QString McpClientTraits::serversKey(McpClient client)
{
    // VS Code: "servers" (code.visualstudio.com/docs/copilot/reference/mcp-configuration);
    // the others "mcpServers" (modelcontextprotocol.io/quickstart/user, geminicli.com/docs/
    // tools/mcp-server, cursor.com/docs/mcp).
    return client == McpClient::VsCode ? QStringLiteral("servers") : QStringLiteral("mcpServers");
}

bool McpClientTraits::allowsComments(McpClient client)
{
    // Gemini CLI: packages/cli/src/config/settings.ts parses with stripJsonComments() then
    // JSON.parse, so comments pass but a trailing comma does not.
    return client == McpClient::VsCode || client == McpClient::GeminiCli;
}

bool McpClientTraits::allowsTrailingCommas(McpClient client)
{
    return client == McpClient::VsCode;
}

} // namespace csm
