#pragma once

#include <QStringList>

#include <optional>

namespace csm {

class Subcommands;

// code-sandbox-mcp's commands besides serving: `history`, `secrets`, `doctor`, `install-client`
// and `uninstall-client`, each run with the process's own streams and environment.
class CommandLine final
{
public:
    // The table of the commands ("code-sandbox-mcp" is its command word), for dispatch and for
    // the help texts and usage errors of the commands themselves.
    static const Subcommands& commands();
    // Runs the command `arguments` (the whole command line, the program first) names and
    // returns its exit code; nothing, having run nothing, when it names none (the server then
    // reads the arguments as its options). Needs a QCoreApplication.
    static std::optional<int> run(const QStringList& arguments);
};

} // namespace csm
