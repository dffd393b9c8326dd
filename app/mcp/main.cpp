// code-sandbox-mcp: the headless MCP server that MCP clients launch. A thin composition root:
// everything it does lives in the engine library.
#include "core/Logging.h"
#include "core/Version.h"
#include "mcp/JsonRpc.h"
#include "mcp/McpDispatcher.h"
#include "platform/ShutdownSignals.h"
#include "server/McpServer.h"
#include "server/ServerOptionsParser.h"
#include "transport/StdioTransport.h"

#include <QCoreApplication>
#include <QTextStream>

int main(int argc, char* argv[])
{
    using namespace csm;
    // stdout belongs to the protocol: every log line goes to stderr, marked as ours.
    qSetMessagePattern(QStringLiteral("code-sandbox-mcp %{if-warning}warning: %{endif}"
                                      "%{if-critical}error: %{endif}%{message}"));
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QString::fromLatin1(kApplicationName));
    QCoreApplication::setApplicationVersion(QString::fromLatin1(kVersion));

    const auto parsed = ServerOptionsParser::parse(QCoreApplication::arguments(),
                                                   QProcessEnvironment::systemEnvironment());
    if (const auto* error = std::get_if<QString>(&parsed)) {
        QTextStream(stderr) << kApplicationName << ": " << *error << "\n"
                            << "Try '" << kApplicationName << " --help'.\n";
        return 2;
    }
    const auto& options = std::get<ServerOptions>(parsed);
    if (options.action == ServerOptions::Action::ShowHelp) {
        QTextStream(stdout) << options.helpText;
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

    ShutdownSignals signals;
    McpServer server(options);
    StdioTransport transport;
    McpDispatcher* session = server.openSession();
    QObject::connect(&transport, &StdioTransport::messageReceived, session,
                     &McpDispatcher::handleMessage);
    QObject::connect(&transport, &StdioTransport::messageTooLarge, &transport, [&transport] {
        transport.send(jsonrpc::error(QJsonValue::Null, jsonrpc::ErrorCode::InvalidRequest,
                                      QStringLiteral("Message larger than %1 MiB refused")
                                          .arg(StdioTransport::kMaxMessageBytes / (1024 * 1024))));
    });
    QObject::connect(session, &McpDispatcher::outgoing, &transport, &StdioTransport::send);
    QObject::connect(&transport, &StdioTransport::closed, &server, &McpServer::shutdown);
    QObject::connect(&signals, &ShutdownSignals::shutdownRequested, &server, &McpServer::shutdown);
    QObject::connect(&server, &McpServer::shutDown, &app, &QCoreApplication::quit);

    transport.start();
    qCInfo(lcServer) << "serving MCP on stdio";
    return QCoreApplication::exec();
}
