#include "cli/ClientCommand.h"

#include "cli/CommandLine.h"
#include "cli/Subcommands.h"
#include "cli/TextTable.h"
#include "clients/ClientConfigLocation.h"
#include "clients/ClientConfigMerger.h"
#include "clients/ClientConfigSnippet.h"
#include "clients/ClientSurvey.h"
#include "clients/JsonTextWriter.h"
#include "core/SettingsFile.h"
#include "history/HistoryLocation.h"
#include "history/HistoryOptions.h"
#include "transport/http/HttpServerConfig.h"
#include "transport/http/HttpTokenFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
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

// The clients that have a project file of their own, for --project's errors.
QString projectClientIds()
{
    QStringList ids;
    for (const McpClient client : McpClientTraits::all()) {
        if (McpClientTraits::hasProjectScope(client))
            ids << McpClientTraits::id(client);
    }
    return ids.join(QStringLiteral(", "));
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

// readOrCreate() in the shape of read(), so that --dry-run and a real run share one path.
Expected<std::optional<QString>> readOrCreateToken(const http::HttpTokenFile& file)
{
    Expected<QString> token = file.readOrCreate();
    if (!token)
        return Unexpected(token.error());
    return std::optional<QString>(*std::move(token));
}

} // namespace

// Where the HTTP entry points and which token it sends, with where they came from.
struct ClientCommand::HttpTarget
{
    QUrl url;
    QString token;
    QString tokenSource; // "--token-file /path", "the desktop app's settings (/path)"...
};

QString ClientCommand::synopsis(Action action)
{
    return action == Action::Install
               ? QStringLiteral("install-client CLIENT [--http] [--dry-run] | --list")
               : QStringLiteral("uninstall-client CLIENT [--dry-run]");
}

ClientCommand::ClientCommand(Action action, QStringList arguments,
                             const QProcessEnvironment& environment, QString serverProgram,
                             QTextStream& out, QTextStream& err, QObject* parent)
    : Command(CommandLine::commands(), commandWord(action), std::move(arguments), environment, out,
              err, parent)
    , m_action(action)
    , m_serverProgram(std::move(serverProgram))
    , m_name(QStringLiteral("name"),
             QStringLiteral("The server's name in the client's list (default: %1).")
                 .arg(ClientServerEntry::defaultName()),
             QStringLiteral("name"))
    , m_dryRun(QStringLiteral("dry-run"),
               QStringLiteral("Print the file as it would become and write nothing (a token "
                              "shows as %1).")
                   .arg(kHiddenToken))
    , m_http(QStringLiteral("http"),
             QStringLiteral("Point the client at a running Streamable HTTP server instead of "
                            "having it start this program over stdio."))
    , m_url(QStringLiteral("url"),
            QStringLiteral("The HTTP server's endpoint (default: the desktop app's HTTP server as "
                           "its settings give it, else http://127.0.0.1:8765/mcp)."),
            QStringLiteral("url"))
    , m_tokenFile(QStringLiteral("token-file"),
                  QStringLiteral("Read the bearer token the HTTP server asks for from this file "
                                 "(default: the token file in the data folder, http-token, which "
                                 "every HTTP server of yours uses unless given its own; without "
                                 "--url, the desktop app's own token if it has one). The "
                                 "client's file is then made readable by you only."),
                  QStringLiteral("file"))
    , m_token(QStringLiteral("token"),
              QStringLiteral("The bearer token itself. Other users see it in 'ps' and your shell "
                             "history keeps it: prefer --token-file."),
              QStringLiteral("token"))
    , m_project(QStringLiteral("project"),
                QStringLiteral("Write the project's own file in this folder instead of the "
                               "user's (%1: <folder>/.mcp.json).")
                    .arg(projectClientIds()),
                QStringLiteral("folder"))
    , m_list(QStringLiteral("list"),
             QStringLiteral("List every client: whether it is installed here and whether its "
                            "file holds the server (with its path or URL)."))
{}

ClientCommand::~ClientCommand() = default;

Command::Syntax ClientCommand::syntax() const
{
    if (m_action == Action::Install) {
        return {QStringLiteral("install-client CLIENT [--project DIR] [--http [--url URL] "
                               "[--token-file FILE]] [--name NAME] [--dry-run]\n"
                               "       code-sandbox-mcp install-client --list"),
                QStringLiteral("Adds this server to the user configuration of an MCP "
                               "client\n(CLIENT: %1),\ncreating the file if needed (JSON; "
                               "Codex's TOML; Goose's YAML). Everything else\nin the file stays "
                               "as it is; the previous file is kept as a backup beside it.")
                    .arg(clientIds()),
                {m_name, m_dryRun, m_http, m_url, m_tokenFile, m_token, m_project, m_list,
                 m_historyOptions.dataDir()},
                1};
    }
    return {QStringLiteral("uninstall-client CLIENT [--project DIR] [--name NAME] [--dry-run]"),
            QStringLiteral("Takes the server out of an MCP client's user configuration\n"
                           "(CLIENT: %1),\nkeeping the previous file as a backup beside it. "
                           "Nothing else in the file changes.")
                .arg(clientIds()),
            {m_name, m_dryRun, m_project},
            1};
}

void ClientCommand::run()
{
    if (!readArguments())
        return;
    if (m_action == Action::Install && parser().isSet(m_list)) {
        listClients();
        return;
    }
    const QString path = configPath();
    if (path.isEmpty())
        return;
    const ClientConfigMerger merger(m_client);
    const ClientConfigMerger::Mode mode =
        m_preview ? ClientConfigMerger::Mode::Preview : ClientConfigMerger::Mode::Write;
    ClientConfigChange change;
    if (m_action == Action::Install) {
        const std::optional<ClientServerEntry> entry = serverEntry();
        if (!entry)
            return;
        change = merger.install(path, *entry, mode);
        if (change.succeeded() && !m_preview)
            out() << outcome(change, m_serverName, false) << "\n  " << describe(*entry) << '\n';
    } else {
        change = merger.uninstall(path, m_serverName, mode);
        if (change.succeeded() && !m_preview)
            out() << outcome(change, m_serverName, false) << '\n';
    }
    report(change);
}

bool ClientCommand::readArguments()
{
    m_serverName = parser().isSet(m_name) ? parser().value(m_name).trimmed()
                                          : ClientServerEntry::defaultName();
    if (m_serverName.isEmpty()) {
        usageError(QStringLiteral("--name cannot be empty"));
        return false;
    }
    if (m_action == Action::Install && parser().isSet(m_list)) {
        if (!positional().isEmpty()) {
            usageError(QStringLiteral("--list takes no client"));
            return false;
        }
        for (const QCommandLineOption* option :
             {&m_http, &m_url, &m_tokenFile, &m_token, &m_project, &m_dryRun}) {
            if (parser().isSet(*option)) {
                usageError(QStringLiteral("--list does not go with --%1")
                               .arg(option->names().constFirst()));
                return false;
            }
        }
        return true;
    }
    if (positional().isEmpty()) {
        usageError(QStringLiteral("which client? Give %1").arg(clientIds()));
        return false;
    }
    const std::optional<McpClient> client = McpClientTraits::fromId(positional().constFirst());
    if (!client) {
        usageError(QStringLiteral("unknown client \"%1\": use %2")
                       .arg(positional().constFirst(), clientIds()));
        return false;
    }
    m_client = *client;
    if (parser().isSet(m_project) && !McpClientTraits::hasProjectScope(m_client)) {
        usageError(QStringLiteral("--project is for %1; %2 has no project file of its own")
                       .arg(projectClientIds(), McpClientTraits::id(m_client)));
        return false;
    }
    const bool install = m_action == Action::Install;
    m_useHttp = install && parser().isSet(m_http);
    if (install && !m_useHttp) {
        for (const QCommandLineOption* option : {&m_url, &m_tokenFile, &m_token}) {
            if (parser().isSet(*option)) {
                usageError(QStringLiteral("--%1 is for an HTTP server: add --http")
                               .arg(option->names().constFirst()));
                return false;
            }
        }
    }
    if (m_useHttp && parser().isSet(m_token) && parser().isSet(m_tokenFile)) {
        usageError(QStringLiteral("--token and --token-file exclude each other"));
        return false;
    }
    m_preview = parser().isSet(m_dryRun);
    return true;
}

QString ClientCommand::configPath()
{
    if (!parser().isSet(m_project))
        return ClientConfigLocation::forEnvironment(environment()).configPath(m_client);
    const QFileInfo folder(parser().value(m_project));
    if (!folder.isDir()) {
        fail(QStringLiteral("the project folder %1 does not exist")
                 .arg(QDir::toNativeSeparators(folder.filePath())));
        return {};
    }
    return ClientConfigLocation::projectConfigPath(m_client, folder.absoluteFilePath());
}

void ClientCommand::listClients()
{
    const QStringList path = environment()
                                 .value(QStringLiteral("PATH"))
                                 .split(QDir::listSeparator(), Qt::SkipEmptyParts);
    const QList<ClientSurvey::Client> clients = ClientSurvey::survey(
        ClientConfigLocation::forEnvironment(environment()), path, m_serverName);
    QList<QStringList> rows{{QStringLiteral("CLIENT"), QStringLiteral("INSTALLED"),
                             QStringLiteral("WIRED"), QStringLiteral("FILE")}};
    QStringList notes;
    for (const ClientSurvey::Client& client : clients) {
        const QString id = McpClientTraits::id(client.client);
        QString wired = client.entry ? client.reach : QStringLiteral("no");
        if (!client.error.isEmpty()) {
            wired = QStringLiteral("unreadable");
            notes << QStringLiteral("%1: %2").arg(id, client.error);
        }
        for (const QString& missing : client.missingPrograms)
            notes << QStringLiteral("%1: %2 no longer exists (install-client %1 again, or "
                                    "uninstall-client %1)")
                         .arg(id, missing);
        rows << QStringList{id, client.installed ? QStringLiteral("yes") : QStringLiteral("no"),
                            wired, QDir::toNativeSeparators(client.configPath)};
    }
    TextTable::print(rows, out());
    for (const QString& note : std::as_const(notes))
        out() << note << '\n';
    finish(Ok);
}

std::optional<ClientServerEntry> ClientCommand::serverEntry()
{
    ClientServerEntry entry;
    if (m_useHttp) {
        const std::optional<HttpTarget> target = httpTarget();
        if (!target)
            return std::nullopt;
        entry = ClientServerEntry::http(target->url, target->token);
        m_hiddenToken = target->token;
        if (!target->tokenSource.isEmpty() && !m_preview)
            out() << "Using the token from " << target->tokenSource << ".\n";
    } else {
        entry = ClientServerEntry::stdio(QDir::cleanPath(m_serverProgram));
    }
    entry.name = m_serverName;
    if (const QString problem = entry.problem(); !problem.isEmpty()) {
        fail(problem);
        return std::nullopt;
    }
    return entry;
}

// The desktop app's embedded HTTP server, as ui/settings/DesktopSettings writes it: the
// [desktop] group's http-host, http-port and http-token (a token of its own; empty when it uses
// the shared token file). The engine cannot use the UI's class, so the keys are read here;
// missing or invalid values give the app's defaults.
ClientCommand::HttpTarget ClientCommand::desktopServer(const QString& dataDir)
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

std::optional<ClientCommand::HttpTarget> ClientCommand::httpTarget()
{
    const QString dataDir =
        HistoryLocation::dataDir(parser().value(m_historyOptions.dataDir()), environment());
    HttpTarget target;
    if (parser().isSet(m_url))
        target.url = QUrl(parser().value(m_url).trimmed(), QUrl::StrictMode);
    else
        target = desktopServer(dataDir);
    if (parser().isSet(m_tokenFile)) {
        QFile file(parser().value(m_tokenFile));
        if (!file.open(QIODevice::ReadOnly)) {
            fail(QStringLiteral("cannot read the token file %1: %2")
                     .arg(QDir::toNativeSeparators(file.fileName()), file.errorString()));
            return std::nullopt;
        }
        target.token = QString::fromUtf8(file.readAll()).trimmed();
        target.tokenSource =
            QStringLiteral("--token-file %1").arg(QDir::toNativeSeparators(file.fileName()));
        if (target.token.isEmpty()) {
            fail(QStringLiteral("the token file %1 is empty")
                     .arg(QDir::toNativeSeparators(file.fileName())));
            return std::nullopt;
        }
    } else if (parser().isSet(m_token)) {
        target.token = parser().value(m_token).trimmed();
        target.tokenSource = QStringLiteral("--token");
        err() << "Note: a token given with --token is visible to other users in 'ps' and "
                 "kept in your shell history; prefer --token-file.\n";
    } else if (target.token.isEmpty()) {
        // The token every server of this user checks unless given its own: made now if no server
        // has made it yet, so that client and servers agree from the start.
        const http::HttpTokenFile shared = http::HttpTokenFile::inDataDir(dataDir);
        const Expected<std::optional<QString>> sharedToken =
            m_preview ? shared.read() : readOrCreateToken(shared);
        if (!sharedToken) {
            fail(sharedToken.error());
            return std::nullopt;
        }
        target.tokenSource =
            QStringLiteral("the token file %1").arg(QDir::toNativeSeparators(shared.path()));
        // --dry-run creates nothing; what it prints hides the token anyway.
        target.token = *sharedToken ? **sharedToken : http::HttpTokenFile::generate();
    }
    return target;
}

void ClientCommand::report(const ClientConfigChange& change)
{
    if (!change.succeeded()) {
        fail(change.error);
        return;
    }
    for (const QString& warning : std::as_const(change.warnings))
        err() << "Warning: " << warning << '\n';
    if (m_preview) {
        // The file's text alone on stdout (so that it can be redirected); what it means on stderr.
        out() << QString::fromUtf8(hideToken(change.text, m_hiddenToken));
        out().flush();
        err() << outcome(change, m_serverName, true) << " Nothing was written (--dry-run).\n";
        finish(Ok);
        return;
    }
    if (!change.backupPath.isEmpty())
        out() << "The previous file is kept as " << QDir::toNativeSeparators(change.backupPath)
              << ".\n";
    if (change.changesFile()) {
        if (m_action == Action::Install)
            out() << ClientConfigSnippet::notes(m_client, m_useHttp
                                                              ? ClientServerEntry::Transport::Http
                                                              : ClientServerEntry::Transport::Stdio)
                  << '\n';
        else
            out() << "Restart " << McpClientTraits::displayName(m_client)
                  << " for the change to take effect.\n";
    }
    finish(Ok);
}

} // namespace csm
