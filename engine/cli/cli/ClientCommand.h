#pragma once

#include "cli/Command.h"
#include "clients/McpClient.h"
#include "history/HistoryOptions.h"

#include <optional>

namespace csm {

struct ClientConfigChange;
struct ClientServerEntry;

// `code-sandbox-mcp install-client CLIENT ...` and `uninstall-client CLIENT ...`: put this
// server into an MCP client's user configuration file, or take it out, with ClientConfigMerger
// (what the desktop app's Server page uses): everything else in the file stays byte for byte and
// a changed file is first copied to a backup beside it.
//   install-client CLIENT [--project DIR] [--http [--url URL] [--token-file F|--token T]]
//                  [--name NAME] [--data-dir DIR] [--dry-run]
//   install-client --list [--name NAME]
//   uninstall-client CLIENT [--project DIR] [--name NAME] [--dry-run]
// CLIENT is one of McpClientTraits::all(): claude, gemini, vscode, cursor, claude-code, codex,
// opencode, qwen, windsurf, zed, lmstudio, goose. --project DIR (Claude Code) writes the
// project's own DIR/.mcp.json instead of the user's file. --list shows, for every client,
// whether it is installed here and whether its file holds the server (ClientSurvey).
// The stdio entry starts `serverProgram`; the HTTP entry points at --url, else at the desktop
// app's HTTP server as its settings give it (the [desktop] group of settings.ini), else at
// http://127.0.0.1:8765/mcp, and sends the token of --token-file or --token, else the desktop
// app's own token (without --url), else the data folder's shared token (HttpTokenFile, created
// if no server has yet). A file given a token becomes 0600, and a warning says when others can
// still reach it (ClientConfigExposure). The client's file is found from $HOME and
// $XDG_CONFIG_HOME in `environment` (ClientConfigLocation). A token is never printed, not even by
// --dry-run.
// Exits with Failed when the file was refused or could not be written (and was left as it was).
class ClientCommand final : public Command
{
    Q_OBJECT

public:
    enum class Action
    {
        Install,
        Uninstall,
    };

    // `arguments`: what follows `install-client` or `uninstall-client`. `out` and `err` must
    // outlive the command.
    ClientCommand(Action action, QStringList arguments, const QProcessEnvironment& environment,
                  QString serverProgram, QTextStream& out, QTextStream& err,
                  QObject* parent = nullptr);
    ~ClientCommand() override;

    // For the overview of code-sandbox-mcp's commands.
    static QString synopsis(Action action);

private:
    struct HttpTarget;

    Syntax syntax() const override;
    void run() override;

    // The client, the server's name and the transport from the command line; false, having
    // refused it, when they are not usable.
    bool readArguments();
    // The file to change: the client's user file, or the project's (--project); empty, having
    // failed the command, when the project folder is not usable.
    QString configPath();
    // --list: every client, installed or not, wired or not.
    void listClients();
    // The entry to install; nothing, having failed the command, when it cannot be made.
    std::optional<ClientServerEntry> serverEntry();
    // Where --http points and with which token; nothing, having failed the command, when the
    // token cannot be read.
    std::optional<HttpTarget> httpTarget();
    // The desktop app's HTTP server and its own token, from its settings in `dataDir`.
    static HttpTarget desktopServer(const QString& dataDir);
    // The change made (or previewed), its warnings and what to do next.
    void report(const ClientConfigChange& change);

    const Action m_action;
    const QString m_serverProgram;
    const HistoryOptions m_historyOptions;
    const QCommandLineOption m_name;
    const QCommandLineOption m_dryRun;
    const QCommandLineOption m_http;
    const QCommandLineOption m_url;
    const QCommandLineOption m_tokenFile;
    const QCommandLineOption m_token;
    const QCommandLineOption m_project;
    const QCommandLineOption m_list;
    McpClient m_client{};
    QString m_serverName;
    bool m_useHttp = false;
    bool m_preview = false;
    QString m_hiddenToken; // hidden wherever the command prints the client's file
};

} // namespace csm
