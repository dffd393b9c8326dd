// code-sandbox-desktop: the desktop app. A thin composition root over the ui and engine
// libraries.
#include "core/Logging.h"
#include "core/Version.h"
#include "history/HistoryLocation.h"
#include "history/HistoryOptions.h"
#include "server/EmbeddedServer.h"
#include "server/ServerOptionsParser.h"
#include "transport/http/HttpTokenFile.h"
#include "ui/MainWindow.h"
#include "ui/settings/DesktopSettings.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QProcessEnvironment>
#include <QTextStream>

int main(int argc, char* argv[])
{
    using namespace csm;
    // With --stdio, stdout carries the MCP protocol: every log line goes to stderr, marked.
    qSetMessagePattern(QStringLiteral("code-sandbox-desktop %{if-warning}warning: %{endif}"
                                      "%{if-critical}error: %{endif}%{message}"));
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("code-sandbox-desktop"));
    QApplication::setApplicationDisplayName(QStringLiteral("Code Sandbox"));
    QApplication::setApplicationVersion(QString::fromLatin1(kVersion));
    // Wayland compositors match the window to the menu entry (and its icon) by this name.
    QApplication::setDesktopFileName(QStringLiteral("io.github.code_sandbox.CodeSandbox"));
    // The window may be closed to the tray's menu; quitting is explicit (MainWindow).
    QApplication::setQuitOnLastWindowClosed(false);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Watch what AI assistants run in Code Sandbox, live.\n\n"
                       "With --stdio, an MCP client can start this app instead of "
                       "code-sandbox-mcp: the window opens and the client's calls are served "
                       "on this process's stdin/stdout, so you watch them as they run."));
    parser.addHelpOption();
    parser.addVersionOption();
    const HistoryOptions historyOptions;
    parser.addOption(historyOptions.dataDir());
    const QCommandLineOption stdio(
        QStringLiteral("stdio"),
        QStringLiteral("Serve MCP on stdin/stdout for the client that started this app."));
    parser.addOption(stdio);
    parser.process(app);

    const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    const QString dataDir =
        HistoryLocation::dataDir(parser.value(historyOptions.dataDir()), environment);
    // The embedded server reads what a headless server started now would: the user's settings
    // under the CODE_SANDBOX_* variables.
    const auto parsed = ServerOptionsParser::parse(
        {QStringLiteral("code-sandbox-mcp"), QStringLiteral("--data-dir"), dataDir}, environment);
    if (!parsed) {
        QTextStream(stderr) << "code-sandbox-desktop: " << parsed.error() << "\n";
        return 2;
    }
    const ServerOptions& options = *parsed;
    for (const QString& warning : options.warnings)
        qCWarning(lcServer).noquote() << warning;

    EmbeddedServer server(options);
    server.start();
    if (parser.isSet(stdio))
        server.serveStdio();
    const DesktopSettings settings = DesktopSettings::load(dataDir);
    if (settings.httpStartWithApp) {
        http::HttpServerConfig config = settings.httpServerConfig();
        if (const Expected<void> applied = http::HttpTokenFile::inDataDir(dataDir).applyTo(config))
            server.startHttp(config);
        else
            qCWarning(lcServer).noquote() << "not serving over HTTP:" << applied.error();
    }

    MainWindow window(dataDir, &server);
    // The client that started us is gone: so is our reason to run.
    QObject::connect(&server, &EmbeddedServer::stdioClosed, &window, &MainWindow::shutDownAndQuit);
    window.show();
    return QApplication::exec();
}
