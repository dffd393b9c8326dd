#include "clients/ClientConfigLocation.h"

#include <QDir>
#include <QFileInfo>

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

ClientConfigLocation ClientConfigLocation::forEnvironment(const QProcessEnvironment& environment)
{
    const QString home = environment.value(QStringLiteral("HOME"));
    return forEnvironment(home.isEmpty() ? QDir::homePath() : home, environment);
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
    case McpClient::ClaudeCode:
        // code.claude.com/docs/en/mcp: user-scoped servers "are stored in ~/.claude.json",
        // under its top-level "mcpServers" (the per-project ones sit under "projects").
        return home + QStringLiteral("/.claude.json");
    case McpClient::Codex:
        // developers.openai.com/codex/mcp: "~/.codex/config.toml", [mcp_servers.<name>].
        return home + QStringLiteral("/.codex/config.toml");
    case McpClient::OpenCode:
        // opencode.ai/docs/config: the global config is ~/.config/opencode/opencode.json.
        return xdgConfig() + QStringLiteral("/opencode/opencode.json");
    case McpClient::QwenCode:
        // qwenlm.github.io/qwen-code-docs/en/users/features/mcp: user scope is
        // ~/.qwen/settings.json.
        return home + QStringLiteral("/.qwen/settings.json");
    case McpClient::Windsurf:
        // docs.windsurf.com/windsurf/cascade/mcp: "~/.codeium/windsurf/mcp_config.json".
        return home + QStringLiteral("/.codeium/windsurf/mcp_config.json");
    case McpClient::Zed:
        // zed.dev/docs/configuring-zed: ~/.config/zed/settings.json on macOS and Linux
        // ($XDG_CONFIG_HOME/zed), %APPDATA%\Zed\settings.json on Windows.
#if defined(Q_OS_WIN)
        return appData + QStringLiteral("/Zed/settings.json");
#else
        return xdgConfig() + QStringLiteral("/zed/settings.json");
#endif
    case McpClient::LmStudio:
        // lmstudio.ai/docs/app/mcp: the app's mcp.json (Program tab, Install > Edit
        // mcp.json), which lives in its home folder, ~/.lmstudio.
        return home + QStringLiteral("/.lmstudio/mcp.json");
    case McpClient::Goose:
        // block.github.io/goose/docs/guides/config-files: ~/.config/goose/config.yaml on
        // macOS and Linux, %APPDATA%\Block\goose\config\config.yaml on Windows.
#if defined(Q_OS_WIN)
        return appData + QStringLiteral("/Block/goose/config/config.yaml");
#else
        return xdgConfig() + QStringLiteral("/goose/config.yaml");
#endif
    }
    Q_UNREACHABLE();
}

QString ClientConfigLocation::configFolder(McpClient client) const
{
    switch (client) {
    case McpClient::ClaudeCode:
        return home + QStringLiteral("/.claude"); // ~/.claude.json sits beside it
    case McpClient::VsCode:
        return appData + QStringLiteral("/Code");
    default:
        return QFileInfo(configPath(client)).absolutePath();
    }
}

QString ClientConfigLocation::projectConfigPath(McpClient client, const QString& folder)
{
    // code.claude.com/docs/en/mcp: project-scoped servers are kept in .mcp.json at the
    // project's root, in the same shape as the user scope's.
    if (client != McpClient::ClaudeCode)
        return {};
    return QDir(folder).absoluteFilePath(QStringLiteral(".mcp.json"));
}

QString ClientConfigLocation::xdgConfig() const
{
#if defined(Q_OS_WIN) || defined(Q_OS_MACOS)
    return home + QStringLiteral("/.config");
#else
    return appData;
#endif
}

} // namespace csm
