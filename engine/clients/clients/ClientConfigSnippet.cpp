#include "clients/ClientConfigSnippet.h"

#include "clients/ClientConfigMerger.h"

#include <QJsonArray>
#include <QJsonObject>

namespace csm {

namespace {

QJsonObject toJsonObject(const QMap<QString, QString>& map)
{
    QJsonObject object;
    for (auto it = map.begin(); it != map.end(); ++it)
        object.insert(it.key(), it.value());
    return object;
}

QString bearer(const QString& token)
{
    return QStringLiteral("Bearer ") + token;
}

// {"command", "args", "env"}, each only when it has something.
void appendProgram(JsonMembers& members, const QString& command, const QStringList& arguments,
                   const QMap<QString, QString>& environment)
{
    members.append({QStringLiteral("command"), command});
    if (!arguments.isEmpty())
        members.append({QStringLiteral("args"), QJsonArray::fromStringList(arguments)});
    if (!environment.isEmpty())
        members.append({QStringLiteral("env"), toJsonObject(environment)});
}

// Goose's tool-call timeout, in seconds, as its documentation writes it.
constexpr int kGooseTimeoutSeconds = 300;

// The token as an Authorization header, under `key` ("headers", Codex's "http_headers").
void appendHeaders(JsonMembers& members, const QString& key, const ClientServerEntry& entry)
{
    if (!entry.token.isEmpty()) {
        members.append({key, QJsonObject{{QStringLiteral("Authorization"), bearer(entry.token)}}});
    }
}

} // namespace

QStringList ClientConfigSnippet::mcpRemoteArguments(const ClientServerEntry& entry)
{
    QStringList arguments{QStringLiteral("-y"), QStringLiteral("mcp-remote"),
                          entry.url.toString(QUrl::FullyEncoded)};
    // mcp-remote refuses plain http except to "localhost" and "127.0.0.1" (not "::1").
    const QString host = entry.url.host();
    if (entry.url.scheme() == QLatin1String("http") && host != QLatin1String("localhost") &&
        host != QLatin1String("127.0.0.1"))
        arguments << QStringLiteral("--allow-http");
    if (!entry.token.isEmpty())
        arguments << QStringLiteral("--header") << QStringLiteral("Authorization:${AUTH_HEADER}");
    return arguments;
}

JsonMembers ClientConfigSnippet::serverValue(McpClient client, const ClientServerEntry& entry)
{
    const bool stdio = entry.transport == ClientServerEntry::Transport::Stdio;
    const QString url = entry.url.toString(QUrl::FullyEncoded);
    JsonMembers members;
    switch (client) {
    case McpClient::ClaudeDesktop:
        if (stdio) {
            appendProgram(members, entry.command, entry.arguments, entry.environment);
        } else {
            QMap<QString, QString> environment;
            if (!entry.token.isEmpty())
                environment.insert(QStringLiteral("AUTH_HEADER"), bearer(entry.token));
            appendProgram(members, QStringLiteral("npx"), mcpRemoteArguments(entry), environment);
        }
        break;
    case McpClient::GeminiCli:
    case McpClient::QwenCode:
        if (stdio) {
            appendProgram(members, entry.command, entry.arguments, entry.environment);
        } else {
            members.append({QStringLiteral("httpUrl"), url});
            appendHeaders(members, QStringLiteral("headers"), entry);
        }
        break;
    case McpClient::VsCode:
    case McpClient::ClaudeCode:
        members.append(
            {QStringLiteral("type"), stdio ? QStringLiteral("stdio") : QStringLiteral("http")});
        if (stdio) {
            appendProgram(members, entry.command, entry.arguments, entry.environment);
        } else {
            members.append({QStringLiteral("url"), url});
            appendHeaders(members, QStringLiteral("headers"), entry);
        }
        break;
    case McpClient::Cursor:
    case McpClient::LmStudio:
    case McpClient::Windsurf:
        if (stdio) {
            appendProgram(members, entry.command, entry.arguments, entry.environment);
        } else {
            members.append({client == McpClient::Windsurf ? QStringLiteral("serverUrl")
                                                          : QStringLiteral("url"),
                            url});
            appendHeaders(members, QStringLiteral("headers"), entry);
        }
        break;
    case McpClient::Codex:
        if (stdio) {
            appendProgram(members, entry.command, entry.arguments, entry.environment);
        } else {
            members.append({QStringLiteral("url"), url});
            appendHeaders(members, QStringLiteral("http_headers"), entry);
        }
        break;
    case McpClient::OpenCode:
        if (stdio) {
            members.append({QStringLiteral("type"), QStringLiteral("local")});
            members.append(
                {QStringLiteral("command"),
                 QJsonArray::fromStringList(QStringList{entry.command} + entry.arguments)});
            if (!entry.environment.isEmpty())
                members.append({QStringLiteral("environment"), toJsonObject(entry.environment)});
        } else {
            members.append({QStringLiteral("type"), QStringLiteral("remote")});
            members.append({QStringLiteral("url"), url});
            appendHeaders(members, QStringLiteral("headers"), entry);
        }
        break;
    case McpClient::Zed:
        if (stdio) {
            // "source": "custom" is what older Zed versions required (their settings were
            // tagged by it); newer ones ignore it. "args" is required, even empty.
            members.append({QStringLiteral("source"), QStringLiteral("custom")});
            members.append({QStringLiteral("command"), entry.command});
            members.append({QStringLiteral("args"), QJsonArray::fromStringList(entry.arguments)});
            if (!entry.environment.isEmpty())
                members.append({QStringLiteral("env"), toJsonObject(entry.environment)});
        } else {
            members.append({QStringLiteral("url"), url});
            appendHeaders(members, QStringLiteral("headers"), entry);
        }
        break;
    case McpClient::Goose:
        // Goose's ExtensionConfig (crates/goose/src/agents/extension.rs): tagged by "type",
        // "name" repeated, "args" required; "timeout" in seconds (its documented 300).
        members.append({QStringLiteral("enabled"), true});
        members.append({QStringLiteral("type"),
                        stdio ? QStringLiteral("stdio") : QStringLiteral("streamable_http")});
        members.append({QStringLiteral("name"), entry.name});
        if (stdio) {
            members.append({QStringLiteral("cmd"), entry.command});
            members.append({QStringLiteral("args"), QJsonArray::fromStringList(entry.arguments)});
            if (!entry.environment.isEmpty())
                members.append({QStringLiteral("envs"), toJsonObject(entry.environment)});
        } else {
            members.append({QStringLiteral("uri"), url});
            appendHeaders(members, QStringLiteral("headers"), entry);
        }
        members.append({QStringLiteral("timeout"), kGooseTimeoutSeconds});
        break;
    }
    return members;
}

QString ClientConfigSnippet::programOf(McpClient client, const QJsonObject& value)
{
    switch (client) {
    case McpClient::OpenCode:
        return value.value(QStringLiteral("command")).toArray().at(0).toString();
    case McpClient::Goose:
        return value.value(QStringLiteral("cmd")).toString();
    case McpClient::Zed: {
        // Zed's older settings nest it: "command": {"path": ...}.
        const QJsonValue command = value.value(QStringLiteral("command"));
        return command.isObject() ? command.toObject().value(QStringLiteral("path")).toString()
                                  : command.toString();
    }
    default:
        return value.value(QStringLiteral("command")).toString();
    }
}

QString ClientConfigSnippet::text(McpClient client, const ClientServerEntry& entry)
{
    // The same writer as "add to this client's configuration", on an empty file, so the
    // snippet is exactly what would be added.
    return QString::fromUtf8(ClientConfigMerger(client).merge(QByteArray(), entry).text);
}

QString ClientConfigSnippet::notes(McpClient client, ClientServerEntry::Transport transport)
{
    const bool http = transport == ClientServerEntry::Transport::Http;
    switch (client) {
    case McpClient::ClaudeDesktop:
        return http ? QStringLiteral(
                          "Claude Desktop starts servers from this file as local programs only, "
                          "so this runs the mcp-remote bridge through npx (Node.js must be "
                          "installed) to reach the HTTP server. Quit Claude Desktop completely "
                          "and start it again after changing the file.")
                    : QStringLiteral("Quit Claude Desktop completely and start it again after "
                                     "changing the file.");
    case McpClient::GeminiCli:
        return QStringLiteral("User settings apply to every folder; a project's "
                              ".gemini/settings.json can hold servers too. Restart Gemini CLI, "
                              "then /mcp lists the server; in a folder Gemini CLI does not "
                              "trust yet, it keeps MCP servers disabled until you trust it.");
    case McpClient::VsCode:
        return QStringLiteral("This is the user profile's mcp.json (MCP: Open User "
                              "Configuration); a workspace can have its own .vscode/mcp.json. "
                              "Start the server from the file or the MCP servers view.");
    case McpClient::Cursor:
        return QStringLiteral("~/.cursor/mcp.json applies to every project; .cursor/mcp.json "
                              "in a project to that project only. Check the server is switched "
                              "on in Cursor's MCP settings.");
    case McpClient::ClaudeCode:
        return QStringLiteral("User scope (~/.claude.json) applies to every project; "
                              "install-client claude-code --project DIR writes DIR/.mcp.json for "
                              "one project. 'claude mcp list' shows the server; /mcp in a "
                              "session shows whether it is connected.");
    case McpClient::Codex:
        return http ? QStringLiteral("Codex reads the token from http_headers. 'codex mcp list' "
                                     "shows the server; start a new Codex session to use it.")
                    : QStringLiteral("'codex mcp list' shows the server; start a new Codex "
                                     "session to use it.");
    case McpClient::OpenCode:
        return QStringLiteral("The global opencode.json applies to every project. 'opencode mcp "
                              "list' shows the server; restart opencode to use it.");
    case McpClient::QwenCode:
        return QStringLiteral("User settings apply to every folder; a project's "
                              ".qwen/settings.json can hold servers too. 'qwen mcp list' shows "
                              "the server.");
    case McpClient::Windsurf:
        return QStringLiteral("Press the refresh button in Cascade's MCP panel (or restart "
                              "Windsurf) to load the server.");
    case McpClient::Zed:
        return QStringLiteral("Zed reloads its settings when the file changes; the Agent "
                              "Panel's settings show the server with a green dot once it runs.");
    case McpClient::LmStudio:
        return QStringLiteral("LM Studio reloads mcp.json when it changes (Program tab, "
                              "Install > Edit mcp.json shows it).");
    case McpClient::Goose:
        return QStringLiteral("Restart Goose (goose session, or the desktop app) to load the "
                              "extension; 'goose configure' lists it.");
    }
    Q_UNREACHABLE();
}

} // namespace csm
