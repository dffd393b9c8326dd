#pragma once

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

class QTextStream;

namespace csm {

// `code-sandbox-mcp install-client CLIENT ...` and `uninstall-client CLIENT ...`: put this
// server into an MCP client's user configuration file, or take it out, with ClientConfigMerger
// (what the desktop app's Server page uses): everything else in the file stays byte for byte and
// a changed file is first copied to a backup beside it.
//   install-client claude|gemini|vscode|cursor [--http [--url URL] [--token-file F|--token T]]
//                  [--name NAME] [--data-dir DIR] [--dry-run]
//   uninstall-client CLIENT [--name NAME] [--dry-run]
// The stdio entry starts `serverProgram`; the HTTP entry points at --url, else at the desktop
// app's HTTP server as its settings give it (the [desktop] group of settings.ini), else at
// http://127.0.0.1:8765/mcp, and sends the token of --token-file or --token, else the desktop
// app's own token (without --url), else the data folder's shared token (HttpTokenFile, created
// if no server has yet). A file given a token becomes 0600, and a warning says when others can
// still reach it (ClientConfigExposure). The client's file is found from $HOME and
// $XDG_CONFIG_HOME in `environment` (ClientConfigLocation). A token is never printed, not even by
// --dry-run.
class ClientCommand final
{
public:
    enum class Action
    {
        Install,
        Uninstall,
    };

    // `arguments`: what follows `install-client` or `uninstall-client`. Returns
    // Subcommands::ExitCode: Ok, Failed (the file was refused or could not be written, and was
    // left as it was) or Usage.
    static int run(Action action, const QStringList& arguments,
                   const QProcessEnvironment& environment, const QString& serverProgram,
                   QTextStream& out, QTextStream& err);

    // For the overview of code-sandbox-mcp's commands.
    static QString synopsis(Action action);
};

} // namespace csm
