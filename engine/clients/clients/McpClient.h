#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace csm {

// The MCP clients whose configuration Code Sandbox can show and edit.
enum class McpClient
{
    ClaudeDesktop,
    GeminiCli,
    VsCode,
    Cursor,
};

// What differs between the clients' configuration files: where the server list lives and which
// JSON dialect the client itself reads (the file is never made into something its client
// rejects). Where each file lives is ClientConfigLocation's business; what an entry looks like
// is ClientConfigSnippet's.
class McpClientTraits final
{
public:
    static QList<McpClient> all();
    // "claude", "gemini", "vscode", "cursor": the names `install-client` takes.
    static QString id(McpClient client);
    static std::optional<McpClient> fromId(const QString& id);
    static QString displayName(McpClient client);
    // The top-level object that maps server names to servers: "mcpServers", or "servers" in
    // VS Code's mcp.json.
    static QString serversKey(McpClient client);
    // Whether the client reads // and /* */ comments in its file (VS Code: JSONC; Gemini CLI:
    // strip-json-comments before JSON.parse). Claude Desktop and Cursor read plain JSON.
    static bool allowsComments(McpClient client);
    // Whether a comma after the last member is accepted (VS Code's JSONC parser only).
    static bool allowsTrailingCommas(McpClient client);
};

} // namespace csm
