#include "clients/McpClient.h"

namespace csm {

QList<McpClient> McpClientTraits::all()
{
    return {McpClient::ClaudeDesktop, McpClient::GeminiCli,  McpClient::VsCode,
            McpClient::Cursor,        McpClient::ClaudeCode, McpClient::Codex,
            McpClient::OpenCode,      McpClient::QwenCode,   McpClient::Windsurf,
            McpClient::Zed,           McpClient::LmStudio,   McpClient::Goose};
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
    case McpClient::ClaudeCode:
        return QStringLiteral("claude-code");
    case McpClient::Codex:
        return QStringLiteral("codex");
    case McpClient::OpenCode:
        return QStringLiteral("opencode");
    case McpClient::QwenCode:
        return QStringLiteral("qwen");
    case McpClient::Windsurf:
        return QStringLiteral("windsurf");
    case McpClient::Zed:
        return QStringLiteral("zed");
    case McpClient::LmStudio:
        return QStringLiteral("lmstudio");
    case McpClient::Goose:
        return QStringLiteral("goose");
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
    if (name == QLatin1String("claudecode"))
        return McpClient::ClaudeCode;
    if (name == QLatin1String("codex-cli"))
        return McpClient::Codex;
    if (name == QLatin1String("qwen-code"))
        return McpClient::QwenCode;
    if (name == QLatin1String("lm-studio"))
        return McpClient::LmStudio;
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
    case McpClient::ClaudeCode:
        return QStringLiteral("Claude Code");
    case McpClient::Codex:
        return QStringLiteral("Codex CLI");
    case McpClient::OpenCode:
        return QStringLiteral("opencode");
    case McpClient::QwenCode:
        return QStringLiteral("Qwen Code");
    case McpClient::Windsurf:
        return QStringLiteral("Windsurf");
    case McpClient::Zed:
        return QStringLiteral("Zed");
    case McpClient::LmStudio:
        return QStringLiteral("LM Studio");
    case McpClient::Goose:
        return QStringLiteral("Goose");
    }
    Q_UNREACHABLE();
}

McpClientTraits::Format McpClientTraits::format(McpClient client)
{
    switch (client) {
    case McpClient::Codex:
        return Format::Toml;
    case McpClient::Goose:
        return Format::Yaml;
    default:
        return Format::Json;
    }
}

QString McpClientTraits::serversKey(McpClient client)
{
    // VS Code: "servers" (code.visualstudio.com/docs/copilot/reference/mcp-configuration);
    // opencode: "mcp" (opencode.ai/docs/mcp-servers); Zed: "context_servers"
    // (zed.dev/docs/ai/mcp); Codex: [mcp_servers.<name>] (developers.openai.com/codex/mcp);
    // Goose: "extensions" (block.github.io/goose/docs/guides/config-files); the others
    // "mcpServers" (modelcontextprotocol.io/quickstart/user, geminicli.com/docs/tools/
    // mcp-server, cursor.com/docs/mcp, code.claude.com/docs/en/mcp, qwenlm.github.io/
    // qwen-code-docs/en/users/features/mcp, docs.windsurf.com/windsurf/cascade/mcp,
    // lmstudio.ai/docs/app/mcp).
    switch (client) {
    case McpClient::VsCode:
        return QStringLiteral("servers");
    case McpClient::OpenCode:
        return QStringLiteral("mcp");
    case McpClient::Zed:
        return QStringLiteral("context_servers");
    case McpClient::Codex:
        return QStringLiteral("mcp_servers");
    case McpClient::Goose:
        return QStringLiteral("extensions");
    default:
        return QStringLiteral("mcpServers");
    }
}

bool McpClientTraits::allowsComments(McpClient client)
{
    // Gemini CLI: packages/cli/src/config/settings.ts parses with stripJsonComments() then
    // JSON.parse, so comments pass but a trailing comma does not; Qwen Code is a fork of it.
    // Zed: "The syntax is JSON with support for // comments" (zed.dev/docs/configuring-zed).
    // opencode: opencode.json(c) is read with jsonc-parser (opencode.ai/docs/config).
    switch (client) {
    case McpClient::VsCode:
    case McpClient::GeminiCli:
    case McpClient::QwenCode:
    case McpClient::Zed:
    case McpClient::OpenCode:
        return true;
    default:
        return false;
    }
}

bool McpClientTraits::allowsTrailingCommas(McpClient client)
{
    // Zed's settings parser is lenient about them; opencode's documented examples have them.
    return client == McpClient::VsCode || client == McpClient::Zed || client == McpClient::OpenCode;
}

bool McpClientTraits::hasProjectScope(McpClient client)
{
    return client == McpClient::ClaudeCode;
}

QStringList McpClientTraits::programNames(McpClient client)
{
    switch (client) {
    case McpClient::ClaudeDesktop:
        return {QStringLiteral("claude-desktop")};
    case McpClient::GeminiCli:
        return {QStringLiteral("gemini")};
    case McpClient::VsCode:
        return {QStringLiteral("code")};
    case McpClient::Cursor:
        return {QStringLiteral("cursor")};
    case McpClient::ClaudeCode:
        return {QStringLiteral("claude")};
    case McpClient::Codex:
        return {QStringLiteral("codex")};
    case McpClient::OpenCode:
        return {QStringLiteral("opencode")};
    case McpClient::QwenCode:
        return {QStringLiteral("qwen")};
    case McpClient::Windsurf:
        return {QStringLiteral("windsurf")};
    case McpClient::Zed:
        return {QStringLiteral("zed"), QStringLiteral("zeditor")};
    case McpClient::LmStudio:
        return {QStringLiteral("lms"), QStringLiteral("lm-studio")};
    case McpClient::Goose:
        return {QStringLiteral("goose")};
    }
    Q_UNREACHABLE();
}

} // namespace csm
