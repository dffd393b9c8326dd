#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace csm {

// The MCP clients whose configuration Code Sandbox can show and edit.
enum class McpClient
{
    ClaudeDesktop,
    GeminiCli,
    VsCode,
    Cursor,
    ClaudeCode,
    Codex,
    OpenCode,
    QwenCode,
    Windsurf,
    Zed,
    LmStudio,
    Goose,
};

// What differs between the clients' configuration files: the file's format, where the server
// list lives and which dialect of the format the client itself reads (the file is never made
// into something its client rejects). Where each file lives is ClientConfigLocation's business;
// what an entry looks like is ClientConfigSnippet's.
class McpClientTraits final
{
public:
    enum class Format
    {
        Json,
        Toml, // Codex's config.toml
        Yaml, // Goose's config.yaml
    };

    static QList<McpClient> all();
    // "claude", "gemini", "vscode", "cursor", "claude-code", "codex", "opencode", "qwen",
    // "windsurf", "zed", "lmstudio", "goose": the names `install-client` takes.
    static QString id(McpClient client);
    static std::optional<McpClient> fromId(const QString& id);
    static QString displayName(McpClient client);
    static Format format(McpClient client);
    // The top-level table that maps server names to servers: "mcpServers"; "servers" in VS
    // Code's mcp.json, "mcp" in opencode.json, "context_servers" in Zed's settings.json,
    // "mcp_servers" in Codex's config.toml, "extensions" in Goose's config.yaml.
    static QString serversKey(McpClient client);
    // Whether the client reads // and /* */ comments in its JSON file (VS Code, Zed and
    // opencode: JSONC; Gemini CLI and Qwen Code: strip-json-comments before JSON.parse).
    // The others read plain JSON. TOML and YAML have comments of their own.
    static bool allowsComments(McpClient client);
    // Whether a comma after the last member is accepted (VS Code, Zed and opencode).
    static bool allowsTrailingCommas(McpClient client);
    // Whether the client also reads a project's own file (Claude Code's .mcp.json), which
    // `install-client --project DIR` writes.
    static bool hasProjectScope(McpClient client);
    // The programs whose presence on PATH shows the client is installed.
    static QStringList programNames(McpClient client);
};

} // namespace csm
