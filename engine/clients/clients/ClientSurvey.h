#pragma once

#include "clients/ClientConfigLocation.h"
#include "clients/McpClient.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace csm {

// What this machine has of each MCP client: whether the client is installed (its folder
// exists, or its program is on PATH), whether its user configuration holds our server, and
// which of its servers start a Code Sandbox program that is no longer there (moved, or
// uninstalled). For `install-client --list` and `doctor`.
class ClientSurvey final
{
public:
    struct Client
    {
        McpClient client{};
        QString configPath;
        bool installed = false;
        // The entry called `serverName`, as the file has it; none when absent.
        std::optional<QJsonObject> entry;
        // How `entry` reaches the server: "stdio: /usr/bin/code-sandbox-mcp", "HTTP: <url>".
        QString reach;
        // Why the file could not be read; empty when it could (or does not exist).
        QString error;
        // "<name>: <program>" for each entry whose program is a Code Sandbox program (or that is
        // called `serverName`) and does not exist.
        QStringList missingPrograms;
    };

    // Every client of McpClientTraits::all(), in that order. `path`: the folders of $PATH.
    static QList<Client> survey(const ClientConfigLocation& location, const QStringList& path,
                                const QString& serverName);
    // How an entry of `client` reaches its server (see Client::reach).
    static QString reachOf(McpClient client, const QJsonObject& value);
};

} // namespace csm
