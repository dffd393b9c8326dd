#include "clients/ClientConfigLocation.h"

#include <QDir>

namespace csm {

ClientConfigLocation ClientConfigLocation::system()
{
    return forEnvironment(QDir::homePath(), QProcessEnvironment::systemEnvironment());
}

ClientConfigLocation ClientConfigLocation::forEnvironment(const QString& home,
                                                          const QProcessEnvironment& environment)
{
    ClientConfigLocation location;
    location.home = QDir::cleanPath(home);
    // Electron apps (Claude Desktop, VS Code) keep their data in app.getPath("appData"): the
    // folders below. QStandardPaths has no name for the macOS and Windows ones (its
    // GenericConfigLocation is ~/Library/Preferences and AppData/Local there).
#if defined(Q_OS_WIN)
    const QString appData = environment.value(QStringLiteral("APPDATA"));
    location.appData = QDir::cleanPath(QDir::fromNativeSeparators(
        appData.isEmpty() ? home + QStringLiteral("/AppData/Roaming") : appData));
#elif defined(Q_OS_MACOS)
    Q_UNUSED(environment)
    location.appData = location.home + QStringLiteral("/Library/Application Support");
#else
    // XDG: a relative XDG_CONFIG_HOME is to be ignored.
    const QString configHome = environment.value(QStringLiteral("XDG_CONFIG_HOME"));
    location.appData = QDir::isAbsolutePath(configHome)
                           ? QDir::cleanPath(configHome)
                           : location.home + QStringLiteral("/.config");
#endif
    return location;
}

QString ClientConfigLocation::configPath(McpClient client) const
{
    switch (client) {
    case McpClient::ClaudeDesktop:
        // modelcontextprotocol.io/quickstart/user: "~/Library/Application Support/Claude/
        // claude_desktop_config.json" (macOS), "%APPDATA%\Claude\claude_desktop_config.json"
        // (Windows); Linux builds follow the same Electron appData rule (~/.config/Claude).
        return appData + QStringLiteral("/Claude/claude_desktop_config.json");
    case McpClient::GeminiCli:
        // geminicli.com/docs/tools/mcp-server: "~/.gemini/settings.json" (user scope).
        return home + QStringLiteral("/.gemini/settings.json");
    case McpClient::VsCode:
        // code.visualstudio.com/docs/copilot/reference/mcp-configuration: mcp.json "in your
        // user profile" (MCP: Open User Configuration), i.e. <appData>/Code/User/mcp.json for
        // the default profile.
        return appData + QStringLiteral("/Code/User/mcp.json");
    case McpClient::Cursor:
        // cursor.com/docs/mcp: "~/.cursor/mcp.json" for tools available in every project.
        return home + QStringLiteral("/.cursor/mcp.json");
    }
    Q_UNREACHABLE();
}

} // namespace csm
