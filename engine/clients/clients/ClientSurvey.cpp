#include "clients/ClientSurvey.h"

#include "clients/ClientConfigMerger.h"
#include "clients/ClientConfigSnippet.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace csm {

namespace {

bool isInstalled(McpClient client, const ClientConfigLocation& location, const QStringList& path)
{
    if (QFileInfo(location.configFolder(client)).isDir())
        return true;
    for (const QString& program : McpClientTraits::programNames(client)) {
        if (!QStandardPaths::findExecutable(program, path).isEmpty())
            return true;
    }
    return false;
}

// Whether an entry's program is one of ours: code-sandbox-mcp, code-sandbox-desktop.
bool isOurs(const QString& serverName, const QString& name, const QString& program)
{
    return name == serverName ||
           QFileInfo(program).fileName().startsWith(QLatin1String("code-sandbox"));
}

} // namespace

QString ClientSurvey::reachOf(McpClient client, const QJsonObject& value)
{
    const QString program = ClientConfigSnippet::programOf(client, value);
    if (!program.isEmpty())
        return QStringLiteral("stdio: %1").arg(QDir::toNativeSeparators(program));
    for (const char* key : {"url", "httpUrl", "serverUrl", "uri"}) {
        const QString url = value.value(QLatin1String(key)).toString();
        if (!url.isEmpty())
            return QStringLiteral("HTTP: %1").arg(url);
    }
    return QStringLiteral("(unrecognised entry)");
}

QList<ClientSurvey::Client> ClientSurvey::survey(const ClientConfigLocation& location,
                                                 const QStringList& path, const QString& serverName)
{
    QList<Client> clients;
    for (const McpClient mcpClient : McpClientTraits::all()) {
        Client client;
        client.client = mcpClient;
        client.configPath = location.configPath(mcpClient);
        client.installed = isInstalled(mcpClient, location, path);
        const Expected<QMap<QString, QJsonObject>> servers =
            ClientConfigMerger(mcpClient).servers(client.configPath);
        client.error = servers.error();
        if (servers) {
            if (servers->contains(serverName)) {
                client.entry = servers->value(serverName);
                client.reach = reachOf(mcpClient, *client.entry);
            }
            for (auto it = servers->begin(); it != servers->end(); ++it) {
                const QString program = ClientConfigSnippet::programOf(mcpClient, it.value());
                if (QDir::isAbsolutePath(program) && isOurs(serverName, it.key(), program) &&
                    !QFileInfo::exists(program))
                    client.missingPrograms << QStringLiteral("%1: %2").arg(
                        it.key(), QDir::toNativeSeparators(program));
            }
        }
        clients << client;
    }
    return clients;
}

} // namespace csm
