#include "cli/CommandLine.h"

#include "cli/ClientCommand.h"
#include "cli/DoctorCommand.h"
#include "cli/HistoryCommand.h"
#include "cli/SecretsCommand.h"
#include "cli/Subcommands.h"
#include "platform/StdinSecretInput.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QProcessEnvironment>
#include <QTextStream>

namespace csm {

namespace {

// Runs a command (start(), then finished(exitCode)) in the application's loop.
int runToEnd(Command& command)
{
    QObject::connect(
        &command, &Command::finished, QCoreApplication::instance(),
        [](int exitCode) { QCoreApplication::exit(exitCode); }, Qt::QueuedConnection);
    command.start();
    return QCoreApplication::exec();
}

int history(const QStringList& arguments)
{
    // The command reports the store's errors itself, once.
    QLoggingCategory::setFilterRules(QStringLiteral("csm.history.warning=false"));
    QTextStream out(stdout);
    QTextStream err(stderr);
    HistoryCommand command(arguments, QProcessEnvironment::systemEnvironment(), out, err);
    return runToEnd(command);
}

int secrets(const QStringList& arguments)
{
    // The command says itself where the values are kept and what it changed.
    QLoggingCategory::setFilterRules(QStringLiteral("csm.engine.info=false"));
    QTextStream out(stdout);
    QTextStream err(stderr);
    StdinSecretInput input;
    SecretsCommand command(arguments, QProcessEnvironment::systemEnvironment(), out, err, input);
    return runToEnd(command);
}

int doctor(const QStringList& arguments)
{
    // Each check's outcome is printed as its line; the engine's log would repeat it.
    QLoggingCategory::setFilterRules(
        QStringLiteral("csm.engine.info=false\ncsm.history.warning=false"));
    QTextStream out(stdout);
    QTextStream err(stderr);
    DoctorCommand command(arguments, QProcessEnvironment::systemEnvironment(), out, err);
    return runToEnd(command);
}

int client(ClientCommand::Action action, const QStringList& arguments)
{
    QTextStream out(stdout);
    QTextStream err(stderr);
    // Clients start the program by its absolute path, without a shell's PATH.
    ClientCommand command(action, arguments, QProcessEnvironment::systemEnvironment(),
                          QCoreApplication::applicationFilePath(), out, err);
    return runToEnd(command);
}

} // namespace

const Subcommands& CommandLine::commands()
{
    using Action = ClientCommand::Action;
    static const Subcommands table(
        QStringLiteral("code-sandbox-mcp"),
        QStringLiteral("With no command, serves MCP (see --help)."),
        {
            {QStringLiteral("history"), QStringLiteral("history list|show|export|prune"),
             QStringLiteral("the run history ('history --help')"), history},
            {QStringLiteral("secrets"), QStringLiteral("secrets set|list|rm|pass-through"),
             QStringLiteral("the secrets sandboxes may be given ('secrets --help')"), secrets},
            {QStringLiteral("doctor"), DoctorCommand::synopsis(),
             QStringLiteral("check the engine, images, launcher, keychain, data folder"), doctor},
            {QStringLiteral("install-client"), ClientCommand::synopsis(Action::Install),
             QStringLiteral("add this server to an assistant's configuration (--list: which)"),
             [](const QStringList& arguments) {
                 return client(Action::Install, arguments);
             }},
            {QStringLiteral("uninstall-client"), ClientCommand::synopsis(Action::Uninstall),
             QStringLiteral("take it out of that client's configuration again"),
             [](const QStringList& arguments) {
                 return client(Action::Uninstall, arguments);
             }},
        },
        QStringLiteral("Each command takes --help.\n"));
    return table;
}

std::optional<int> CommandLine::run(const QStringList& arguments)
{
    return commands().dispatch(arguments.mid(1));
}

} // namespace csm
