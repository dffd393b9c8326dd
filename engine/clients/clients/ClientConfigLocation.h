#pragma once

#include "clients/McpClient.h"

#include <QProcessEnvironment>
#include <QString>

namespace csm {

// Where the clients keep their user-wide configuration, from two folders: the home folder and
// the platform's application-data folder (~/.config or $XDG_CONFIG_HOME on Linux,
// ~/Library/Application Support on macOS, %APPDATA% on Windows). Tests point both at a
// temporary folder.
struct ClientConfigLocation
{
    QString home;
    QString appData;

    // The current user's folders.
    static ClientConfigLocation system();
    // The folders for `home` and the variables of `environment` (XDG_CONFIG_HOME, APPDATA) on
    // the platform this is built for.
    static ClientConfigLocation forEnvironment(const QString& home,
                                               const QProcessEnvironment& environment);

    // The user configuration file of `client` (which may not exist yet):
    // - Claude Desktop: <appData>/Claude/claude_desktop_config.json
    // - Gemini CLI:     <home>/.gemini/settings.json
    // - VS Code:        <appData>/Code/User/mcp.json (the user profile's mcp.json)
    // - Cursor:         <home>/.cursor/mcp.json
    QString configPath(McpClient client) const;
};

} // namespace csm
