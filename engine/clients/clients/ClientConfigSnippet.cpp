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

void appendHeaders(JsonMembers& members, const ClientServerEntry& entry)
{
    if (!entry.token.isEmpty()) {
        members.append({QStringLiteral("headers"),
                        QJsonObject{{QStringLiteral("Authorization"), bearer(entry.token)}}});
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
    JsonMembers members;
    if (entry.transport == ClientServerEntry::Transport::Stdio) {
        if (client == McpClient::VsCode)
            members.append({QStringLiteral("type"), QStringLiteral("stdio")});
        appendProgram(members, entry.command, entry.arguments, entry.environment);
        return members;
    }
    const QString url = entry.url.toString(QUrl::FullyEncoded);
    switch (client) {
    case McpClient::ClaudeDesktop: {
        QMap<QString, QString> environment;
        if (!entry.token.isEmpty())
            environment.insert(QStringLiteral("AUTH_HEADER"), bearer(entry.token));
        appendProgram(members, QStringLiteral("npx"), mcpRemoteArguments(entry), environment);
        break;
    }
    case McpClient::GeminiCli:
        members.append({QStringLiteral("httpUrl"), url});
        appendHeaders(members, entry);
        break;
    case McpClient::VsCode:
        members.append({QStringLiteral("type"), QStringLiteral("http")});
        members.append({QStringLiteral("url"), url});
        appendHeaders(members, entry);
        break;
    case McpClient::Cursor:
        members.append({QStringLiteral("url"), url});
        appendHeaders(members, entry);
        break;
    }
    return members;
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
                              "then /mcp lists the server.");
    case McpClient::VsCode:
        return QStringLiteral("This is the user profile's mcp.json (MCP: Open User "
                              "Configuration); a workspace can have its own .vscode/mcp.json. "
                              "Start the server from the file or the MCP servers view.");
    case McpClient::Cursor:
        return QStringLiteral("~/.cursor/mcp.json applies to every project; .cursor/mcp.json "
                              "in a project to that project only. Check the server is switched "
                              "on in Cursor's MCP settings.");
    }
    Q_UNREACHABLE();
}

} // namespace csm
