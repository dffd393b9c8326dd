#pragma once

#include "clients/ClientServerEntry.h"
#include "clients/JsonTextWriter.h"
#include "clients/McpClient.h"

#include <QString>

namespace csm {

// Each client's way of writing a server down, as its documentation gives it:
// - Claude Desktop (modelcontextprotocol.io/quickstart/user): {"command", "args", "env"}. Its
//   file only starts local programs; a Streamable HTTP server is reached through the mcp-remote
//   bridge (github.com/geelen/mcp-remote README): `npx -y mcp-remote <url>`, `--allow-http` for
//   a plain-http URL that is not localhost/127.0.0.1, and the token as
//   `--header Authorization:${AUTH_HEADER}` with AUTH_HEADER="Bearer <token>" in "env" (the
//   README's workaround for clients that split arguments at spaces). Claude's own connectors
//   UI is the other way, but it cannot be written into this file.
// - Gemini CLI (geminicli.com/docs/tools/mcp-server): {"command", "args", "env"}, or
//   {"httpUrl", "headers"} for Streamable HTTP ("url" would mean the older SSE transport).
// - VS Code (code.visualstudio.com/docs/copilot/reference/mcp-configuration):
//   {"type": "stdio", "command", "args", "env"} or {"type": "http", "url", "headers"}.
// - Cursor (cursor.com/docs/mcp): {"command", "args", "env"} or {"url", "headers"}.
// - Claude Code (code.claude.com/docs/en/mcp): {"type": "stdio", "command", "args", "env"} or
//   {"type": "http", "url", "headers"}.
// - Codex CLI (developers.openai.com/codex/mcp): command, args, env; or url and http_headers
//   (a bearer_token written inline is refused by Codex; bearer_token_env_var would need the
//   token in Codex's environment).
// - opencode (opencode.ai/docs/mcp-servers): {"type": "local", "command": [program, args...],
//   "environment"} or {"type": "remote", "url", "headers"}.
// - Qwen Code (qwenlm.github.io/qwen-code-docs/en/users/features/mcp): Gemini CLI's shape,
//   "httpUrl" for Streamable HTTP.
// - Windsurf (docs.windsurf.com/windsurf/cascade/mcp): {"command", "args", "env"} or
//   {"serverUrl", "headers"}.
// - Zed (zed.dev/docs/ai/mcp): {"source": "custom", "command", "args", "env"} or
//   {"url", "headers"}.
// - LM Studio (lmstudio.ai/docs/app/mcp): "follows Cursor's mcp.json notation".
// - Goose (block.github.io/goose/docs/guides/config-files): {enabled, type: stdio, name, cmd,
//   args, envs, timeout} or {enabled, type: streamable_http, name, uri, headers, timeout}.
// Members without a value (no arguments, no token) are left out, except where the client
// requires them.
class ClientConfigSnippet final
{
public:
    // The value of the server's member in `client`'s file.
    static JsonMembers serverValue(McpClient client, const ClientServerEntry& entry);
    // A whole configuration file holding only this server, ready to paste: two-space indent,
    // "\n" line ends and a final line end.
    static QString text(McpClient client, const ClientServerEntry& entry);
    // What the user should know about this configuration: where it goes, what it needs.
    static QString notes(McpClient client, ClientServerEntry::Transport transport);
    // The program a stdio entry of `client` starts (its value as ClientConfigFormat::servers
    // gives it); empty for an HTTP entry.
    static QString programOf(McpClient client, const QJsonObject& value);
    // The arguments of `npx` that bridge a stdio-only client to `entry`'s HTTP server.
    static QStringList mcpRemoteArguments(const ClientServerEntry& entry);
};

} // namespace csm
