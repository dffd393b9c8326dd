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
    // The same with the home folder of `environment` ($HOME, else the user's).
    static ClientConfigLocation forEnvironment(const QProcessEnvironment& environment);

    // The user configuration file of `client` (which may not exist yet):
    // - Claude Desktop: <appData>/Claude/claude_desktop_config.json
    // - Gemini CLI:     <home>/.gemini/settings.json
    // - VS Code:        <appData>/Code/User/mcp.json (the user profile's mcp.json)
    // - Cursor:         <home>/.cursor/mcp.json
    // - Claude Code:    <home>/.claude.json (user scope)
    // - Codex CLI:      <home>/.codex/config.toml
    // - opencode:       ~/.config/opencode/opencode.json (XDG_CONFIG_HOME on Linux)
    // - Qwen Code:      <home>/.qwen/settings.json
    // - Windsurf:       <home>/.codeium/windsurf/mcp_config.json
    // - Zed:            ~/.config/zed/settings.json (<appData>/Zed on Windows)
    // - LM Studio:      <home>/.lmstudio/mcp.json
    // - Goose:          ~/.config/goose/config.yaml (<appData>/Block/goose/config on Windows)
    QString configPath(McpClient client) const;
    // The folder the client makes when it first runs (where its file is, or will be): that it
    // exists tells the client is installed here.
    QString configFolder(McpClient client) const;
    // The file of a project's own servers in `folder`, for the clients that have one
    // (McpClientTraits::hasProjectScope: Claude Code's <folder>/.mcp.json); empty otherwise.
    static QString projectConfigPath(McpClient client, const QString& folder);

private:
    // ~/.config, or $XDG_CONFIG_HOME: where the command-line tools that follow XDG on every
    // platform but Windows (opencode, Zed, Goose) keep their files.
    QString xdgConfig() const;
};

} // namespace csm
