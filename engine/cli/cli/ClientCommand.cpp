#include "cli/ClientCommand.h"

#include "cli/CommandLine.h"
#include "cli/Subcommands.h"
#include "clients/ClientConfigLocation.h"
#include "clients/ClientConfigMerger.h"
#include "clients/ClientConfigSnippet.h"
#include "clients/JsonTextWriter.h"
#include "core/SettingsFile.h"
#include "history/HistoryLocation.h"
#include "history/HistoryOptions.h"
#include "transport/http/HttpServerConfig.h"
#include "transport/http/HttpTokenFile.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFile>
#include <QTextStream>

namespace csm {

namespace {

using Action = ClientCommand::Action;
using Change = ClientConfigChange::Action;

// Shown instead of the token wherever the command prints a configuration.
const QString kHiddenToken = QStringLiteral("<token hidden>");

QString commandWord(Action action)
{
    return action == Action::Install ? QStringLiteral("install-client")
                                     : QStringLiteral("uninstall-client");
}

QString clientIds()
{
    QStringList ids;
    for (const McpClient client : McpClientTraits::all())
        ids << McpClientTraits::id(client);
    const QString last = ids.takeLast();
    return ids.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last;
}

// Where the HTTP entry points and which token it sends, with where they came from.
struct HttpTarget
{
    QUrl url;
    QString token;
    QString tokenSource; // "--token-file /path", "the desktop app's settings (/path)"...
};

// The desktop app's embedded HTTP server, as ui/settings/DesktopSettings writes it: the
// [desktop] group's http-host, http-port and http-token (a token of its own; empty when it uses
// the shared token file). The engine cannot use the UI's class, so the keys are read here;
// missing or invalid values give the app's defaults.
HttpTarget desktopServer(const QString& dataDir)
{
    const SettingsFile desktop(dataDir, QStringLiteral("desktop"));
    http::HttpServerConfig config;
    const QString host = desktop.value(QStringLiteral("http-host")).trimmed();
    if (!host.isEmpty())
        config.host = host;
    bool ok = false;
    const int port = desktop.value(QStringLiteral("http-port")).toInt(&ok);
    if (ok && port > 0 && port <= 65535)
        config.port = static_cast<quint16>(port);
    HttpTarget target;
    target.url = config.clientUrl();
    target.token = desktop.value(QStringLiteral("http-token")).trimmed();
    if (!target.token.isEmpty()) {
        target.tokenSource = QStringLiteral("the desktop app's settings (%1)")
                                 .arg(QDir::toNativeSeparators(SettingsFile::path(dataDir)));
    }
    return target;
}

// `text` with every copy of `token` (as written in JSON too) replaced, for printing.
QByteArray hideToken(QByteArray text, const QString& token)
{
    if (token.isEmpty())
        return text;
    QByteArray escaped = JsonTextWriter::string(token);
    escaped = escaped.mid(1, escaped.size() - 2);
    text.replace(escaped, kHiddenToken.toUtf8());
    text.replace(token.toUtf8(), kHiddenToken.toUtf8());
    return text;
}

QString describe(const ClientServerEntry& entry)
{
    if (entry.transport == ClientServerEntry::Transport::Stdio)
        return QStringLiteral("stdio: %1").arg(QDir::toNativeSeparators(entry.command));
    return QStringLiteral("HTTP: %1%2")
        .arg(entry.url.toString(),
             entry.token.isEmpty() ? QString() : QStringLiteral(", with a bearer token"));
}

// What happened (or would happen, with `preview`), in one sentence.
QString outcome(const ClientConfigChange& change, const QString& name, bool preview)
{
    const QString path = QDir::toNativeSeparators(change.path);
    const auto said = [preview](const char* done, const char* would) {
        return QString::fromLatin1(preview ? would : done);
    };
    switch (change.action) {
    case Change::Created:
        return QStringLiteral("%1 %2 with the server \"%3\".")
            .arg(said("Created", "Would create"), path, name);
    case Change::Added:
        return QStringLiteral("%1 the server \"%2\" to %3.")
            .arg(said("Added", "Would add"), name, path);
    case Change::Replaced:
        return QStringLiteral("%1 the server \"%2\" in %3.")
            .arg(said("Replaced", "Would replace"), name, path);
    case Change::Removed:
        return QStringLiteral("%1 the server \"%2\" from %3.")
            .arg(said("Removed", "Would remove"), name, path);
    case Change::Unchanged:
        return QStringLiteral("The server \"%1\" is already in %2 as it would be written: "
                              "nothing to change (unchanged).")
            .arg(name, path);
    case Change::NotFound:
        return QStringLiteral("No server \"%1\" in %2: nothing to remove (not found).")
            .arg(name, path);
    case Change::Failed:
        return change.error;
    }
    Q_UNREACHABLE();
}

} // namespace

QString ClientCommand::synopsis(Action action)
{
    return action == Action::Install ? QStringLiteral("install-client CLIENT [--http] [--dry-run]")
                                     : QStringLiteral("uninstall-client CLIENT [--dry-run]");
}

int ClientCommand::run(Action action, const QStringList& arguments,
                       const QProcessEnvironment& environment, const QString& serverProgram,
                       QTextStream& out, QTextStream& err)
{
    const Subcommands& commands = CommandLine::commands();
    const QString word = commandWord(action);
    const bool install = action == Action::Install;

    const HistoryOptions historyOptions;
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help and exit."));
    const QCommandLineOption name(
        QStringLiteral("name"),
        QStringLiteral("The server's name in the client's list (default: %1).")
            .arg(ClientServerEntry::defaultName()),
        QStringLiteral("name"));
    const QCommandLineOption dryRun(
        QStringLiteral("dry-run"),
        QStringLiteral("Print the file as it would become and write nothing (a token shows as "
                       "%1).")
            .arg(kHiddenToken));
    const QCommandLineOption httpOption(
        QStringLiteral("http"),
        QStringLiteral("Point the client at a running Streamable HTTP server instead of having "
                       "it start this program over stdio."));
    const QCommandLineOption url(
        QStringLiteral("url"),
        QStringLiteral("The HTTP server's endpoint (default: the desktop app's HTTP server as "
                       "its settings give it, else http://127.0.0.1:8765/mcp)."),
        QStringLiteral("url"));
    const QCommandLineOption tokenFile(
        QStringLiteral("token-file"),
        QStringLiteral("Read the bearer token the HTTP server asks for from this file "
                       "(default: the token file in the data folder, http-token, which every "
                       "HTTP server of yours uses unless given its own; without --url, the "
                       "desktop app's own token if it has one). The client's file is then made "
                       "readable by you only."),
        QStringLiteral("file"));
    const QCommandLineOption token(
        QStringLiteral("token"),
        QStringLiteral("The bearer token itself. Other users see it in 'ps' and your shell "
                       "history keeps it: prefer --token-file."),
        QStringLiteral("token"));

    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addOptions({help, name, dryRun});
    if (install)
        parser.addOptions({httpOption, url, tokenFile, token, historyOptions.dataDir()});
    const QString usage =
        install ? QStringLiteral("install-client CLIENT [--http [--url URL] [--token-file FILE]] "
                                 "[--name NAME] [--dry-run]")
                : QStringLiteral("uninstall-client CLIENT [--name NAME] [--dry-run]");
    const QString description =
        install ? QStringLiteral(
                      "Adds this server to the user configuration of an MCP client\n(CLIENT: "
                      "%1), creating the file if needed.\nEverything else in the file stays as "
                      "it is; the previous file is kept as a backup\nbeside it.")
                      .arg(clientIds())
                : QStringLiteral(
                      "Takes the server out of an MCP client's user configuration\n"
                      "(CLIENT: %1), keeping the previous file as a backup beside it.\nNothing "
                      "else in the file changes.")
                      .arg(clientIds());

    if (!parser.parse(QStringList{commands.command()} + arguments))
        return commands.usageError(err, word, parser.errorText());
    if (parser.isSet(help)) {
        out << commands.help(parser, usage, description);
        return Subcommands::Ok;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return commands.usageError(err, word,
                                   QStringLiteral("which client? Give %1").arg(clientIds()));
    if (positional.size() > 1)
        return commands.usageError(
            err, word, QStringLiteral("unexpected argument \"%1\"").arg(positional.at(1)));
    const std::optional<McpClient> client = McpClientTraits::fromId(positional.constFirst());
    if (!client)
        return commands.usageError(err, word,
                                   QStringLiteral("unknown client \"%1\": use %2")
                                       .arg(positional.constFirst(), clientIds()));

    const QString serverName =
        parser.isSet(name) ? parser.value(name).trimmed() : ClientServerEntry::defaultName();
    if (serverName.isEmpty())
        return commands.usageError(err, word, QStringLiteral("--name cannot be empty"));
    const bool http = install && parser.isSet(httpOption);
    if (install && !http) {
        for (const QCommandLineOption* option : {&url, &tokenFile, &token}) {
            if (parser.isSet(*option))
                return commands.usageError(err, word,
                                           QStringLiteral("--%1 is for an HTTP server: add --http")
                                               .arg(option->names().constFirst()));
        }
    }
    if (http && parser.isSet(token) && parser.isSet(tokenFile))
        return commands.usageError(err, word,
                                   QStringLiteral("--token and --token-file exclude each other"));

    const QString home = environment.value(QStringLiteral("HOME"));
    const ClientConfigLocation location =
        ClientConfigLocation::forEnvironment(home.isEmpty() ? QDir::homePath() : home, environment);
    const QString path = location.configPath(*client);
    const ClientConfigMerger merger(*client);
    const ClientConfigMerger::Mode mode =
        parser.isSet(dryRun) ? ClientConfigMerger::Mode::Preview : ClientConfigMerger::Mode::Write;
    const bool preview = mode == ClientConfigMerger::Mode::Preview;

    ClientConfigChange change;
    QString hiddenToken;
    if (install) {
        ClientServerEntry entry;
        if (http) {
            const QString dataDir =
                HistoryLocation::dataDir(parser.value(historyOptions.dataDir()), environment);
            HttpTarget target;
            if (parser.isSet(url)) {
                target.url = QUrl(parser.value(url).trimmed(), QUrl::StrictMode);
            } else {
                target = desktopServer(dataDir);
            }
            if (parser.isSet(tokenFile)) {
                QFile file(parser.value(tokenFile));
                if (!file.open(QIODevice::ReadOnly)) {
                    err << commands.command() << ' ' << word << ": cannot read the token file "
                        << QDir::toNativeSeparators(file.fileName()) << ": " << file.errorString()
                        << '\n';
                    return Subcommands::Failed;
                }
                target.token = QString::fromUtf8(file.readAll()).trimmed();
                target.tokenSource = QStringLiteral("--token-file %1")
                                         .arg(QDir::toNativeSeparators(file.fileName()));
                if (target.token.isEmpty()) {
                    err << commands.command() << ' ' << word << ": the token file "
                        << QDir::toNativeSeparators(file.fileName()) << " is empty\n";
                    return Subcommands::Failed;
                }
            } else if (parser.isSet(token)) {
                target.token = parser.value(token).trimmed();
                target.tokenSource = QStringLiteral("--token");
                err << "Note: a token given with --token is visible to other users in 'ps' and "
                       "kept in your shell history; prefer --token-file.\n";
            } else if (target.token.isEmpty()) {
                // The token every server of this user checks unless given its own: made now if
                // no server has made it yet, so that client and servers agree from the start.
                const http::HttpTokenFile shared = http::HttpTokenFile::inDataDir(dataDir);
                QString error;
                std::optional<QString> sharedToken =
                    preview ? shared.read(&error) : shared.readOrCreate(&error);
                if (!error.isEmpty()) {
                    err << commands.command() << ' ' << word << ": " << error << '\n';
                    return Subcommands::Failed;
                }
                target.tokenSource = QStringLiteral("the token file %1")
                                         .arg(QDir::toNativeSeparators(shared.path()));
                if (!sharedToken) {
                    // --dry-run creates nothing; what it prints hides the token anyway.
                    sharedToken = http::HttpTokenFile::generate();
                }
                target.token = *sharedToken;
            }
            entry = ClientServerEntry::http(target.url, target.token);
            hiddenToken = target.token;
            if (!target.tokenSource.isEmpty() && !preview)
                out << "Using the token from " << target.tokenSource << ".\n";
        } else {
            entry = ClientServerEntry::stdio(QDir::cleanPath(serverProgram));
        }
        entry.name = serverName;
        if (const QString problem = entry.problem(); !problem.isEmpty()) {
            err << commands.command() << ' ' << word << ": " << problem << '\n';
            return Subcommands::Failed;
        }
        change = merger.install(path, entry, mode);
        if (change.succeeded() && !preview) {
            out << outcome(change, serverName, false) << "\n  " << describe(entry) << '\n';
        }
    } else {
        change = merger.uninstall(path, serverName, mode);
        if (change.succeeded() && !preview)
            out << outcome(change, serverName, false) << '\n';
    }

    if (!change.succeeded()) {
        err << commands.command() << ' ' << word << ": " << change.error << '\n';
        return Subcommands::Failed;
    }
    for (const QString& warning : std::as_const(change.warnings))
        err << "Warning: " << warning << '\n';
    if (preview) {
        // The file's text alone on stdout (so that it can be redirected); what it means on stderr.
        out << QString::fromUtf8(hideToken(change.text, hiddenToken));
        out.flush();
        err << outcome(change, serverName, true) << " Nothing was written (--dry-run).\n";
        return Subcommands::Ok;
    }
    if (!change.backupPath.isEmpty())
        out << "The previous file is kept as " << QDir::toNativeSeparators(change.backupPath)
            << ".\n";
    if (change.changesFile()) {
        if (install)
            out << ClientConfigSnippet::notes(*client, http ? ClientServerEntry::Transport::Http
                                                            : ClientServerEntry::Transport::Stdio)
                << '\n';
        else
            out << "Restart " << McpClientTraits::displayName(*client)
                << " for the change to take effect.\n";
    }
    return Subcommands::Ok;
}

} // namespace csm
