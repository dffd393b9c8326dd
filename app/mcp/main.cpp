// code-sandbox-mcp: the headless MCP server that MCP clients launch. A thin composition root:
// everything it does lives in the engine library.
#include "cli/CommandLine.h"
#include "cli/Subcommands.h"
#include "core/Logging.h"
#include "core/Version.h"
#include "platform/ShutdownSignals.h"
#include "server/HttpServing.h"
#include "server/McpServer.h"
#include "server/ServerOptionsParser.h"
#include "server/StdioServing.h"
#include "transport/http/HttpListenPolicy.h"
#include "transport/http/HttpTokenFile.h"

#include <QCoreApplication>
#include <QDir>
#include <QTextStream>

namespace {

using namespace csm;

// Where the token is, never the token itself.
void logHowClientsAuthenticate(const http::HttpServerConfig& config)
{
    if (config.noAuth)
        qCWarning(lcServer).noquote()
            << "--no-auth: no token is asked for, so every account on this machine can connect "
               "and run code as this user, with this user's secrets";
    else if (!config.authTokenFile.isEmpty())
        qCInfo(lcServer).noquote()
            << "clients must send \"Authorization: Bearer <token>\" with the token kept in"
            << QDir::toNativeSeparators(config.authTokenFile)
            << "(install-client --http writes it into a client's configuration)";
    else
        qCInfo(lcServer).noquote()
            << "clients must send \"Authorization: Bearer <token>\" with the token given by "
               "--auth-token or CODE_SANDBOX_AUTH_TOKEN";
}

int serveStdio(McpServer& server, ShutdownSignals& signals)
{
    StdioServing transport(server);
    // The client that started us is gone: so is our reason to run.
    QObject::connect(&transport, &StdioServing::closed, &server, &McpServer::shutdown);
    QObject::connect(&signals, &ShutdownSignals::shutdownRequested, &server, &McpServer::shutdown);
    transport.start();
    return QCoreApplication::exec();
}

int serveHttp(McpServer& server, ShutdownSignals& signals, const http::HttpServerConfig& config)
{
    HttpServing transport(server, config);
    int exitCode = 0;
    QObject::connect(&transport, &HttpServing::listening, &server,
                     [&config] { logHowClientsAuthenticate(config); });
    QObject::connect(&transport, &HttpServing::failed, &server,
                     [&server, &exitCode](const QString& error) {
                         qCCritical(lcServer).noquote() << error;
                         exitCode = 1;
                         server.shutdown();
                     });
    QObject::connect(&signals, &ShutdownSignals::shutdownRequested, &server, [&server, &transport] {
        // No new request first; then every call is cancelled.
        transport.stop();
        server.shutdown();
    });

    transport.start();
    const int loopExit = QCoreApplication::exec();
    return exitCode != 0 ? exitCode : loopExit;
}

} // namespace

int main(int argc, char* argv[])
{
    using namespace csm;
    // stdout belongs to the protocol: every log line goes to stderr, marked as ours.
    qSetMessagePattern(QStringLiteral("code-sandbox-mcp %{if-warning}warning: %{endif}"
                                      "%{if-critical}error: %{endif}%{message}"));
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QString::fromLatin1(kApplicationName));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(kVersion));

    // `code-sandbox-mcp history ...`, `doctor`...: a command instead of a server.
    const QStringList arguments = QCoreApplication::arguments();
    if (const std::optional<int> exitCode = CommandLine::run(arguments))
        return *exitCode;

    const auto parsed =
        ServerOptionsParser::parse(arguments, QProcessEnvironment::systemEnvironment());
    if (!parsed) {
        QTextStream(stderr) << kApplicationName << ": " << parsed.error() << "\n"
                            << "Try '" << kApplicationName << " --help'.\n";
        return 2;
    }
    const auto& options = *parsed;
    if (options.action == ServerOptions::Action::ShowHelp) {
        QTextStream(stdout) << options.helpText << '\n' << CommandLine::commands().commandList();
        return 0;
    }
    if (options.action == ServerOptions::Action::ShowVersion) {
        QTextStream(stdout) << kApplicationName << " " << kVersion << "\n";
        return 0;
    }
    if (options.verbose)
        QLoggingCategory::setFilterRules(QStringLiteral("csm.*.debug=true"));
    for (const QString& warning : options.warnings)
        qCWarning(lcServer).noquote() << warning;

    // Over HTTP: the token (the data folder's unless one was given), and whether the listener
    // will accept that configuration at all, before any container starts.
    http::HttpServerConfig httpConfig = options.http;
    if (options.transport == ServerOptions::Transport::Http) {
        if (const Expected<void> applied =
                http::HttpTokenFile::inDataDir(options.dataDir).applyTo(httpConfig);
            !applied) {
            QTextStream(stderr) << kApplicationName << ": " << applied.error() << "\n";
            return 1;
        }
        if (const std::optional<QString> refusal = http::HttpListenPolicy::refusal(httpConfig)) {
            QTextStream(stderr) << kApplicationName << ": " << *refusal << "\n"
                                << "Try '" << kApplicationName << " --help'.\n";
            return 2;
        }
    }

    ShutdownSignals signals;
    McpServer server(options);
    QObject::connect(&server, &McpServer::shutdownFinished, &app, &QCoreApplication::quit);
    if (options.transport == ServerOptions::Transport::Http)
        return serveHttp(server, signals, httpConfig);
    return serveStdio(server, signals);
}
