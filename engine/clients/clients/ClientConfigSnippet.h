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
// Members without a value (no arguments, no token) are left out.
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
    // The arguments of `npx` that bridge a stdio-only client to `entry`'s HTTP server.
    static QStringList mcpRemoteArguments(const ClientServerEntry& entry);
};

} // namespace csm
