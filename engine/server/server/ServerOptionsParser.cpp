#include "server/ServerOptionsParser.h"

#include "egress/HostGateway.h"
#include "egress/HostPattern.h"
#include "history/HistoryLocation.h"
#include "history/HistoryOptions.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/Language.h"
#include "runtime/SharedFolderText.h"
#include "server/HttpOptionsParser.h"
#include "server/ServerSettingsReader.h"
#include "server/ServerSettingsSchema.h"

#include <QCommandLineParser>
#include <QRegularExpression>
#include <QSet>

namespace csm {

namespace {
using Section = ServerSetting::Section;

const QRegularExpression& variableNamePattern()
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return pattern;
}

QString description()
{
    return QStringLiteral(
        "An MCP server that runs Python and JavaScript in fresh, locked-down containers.\n"
        "With no arguments it serves MCP over stdio, as MCP clients launch it; --transport http "
        "serves Streamable HTTP on 127.0.0.1:8765/mcp, to clients that send the bearer token kept "
        "in the data folder's http-token (made on first use; 'install-client CLIENT --http' "
        "writes it into a client's configuration).\n\n"
        "Environment: CODE_SANDBOX_ENGINE (podman|docker), CONTAINER_IMAGE with "
        "CONTAINER_LANGUAGE (python|javascript) to replace that language's image.\n\n"
        "Every call is recorded in the run history (see --data-dir, --no-history); "
        "'code-sandbox-mcp history --help' lists, shows, exports and prunes it.\n\n"
        "Secrets marked pass-through ('code-sandbox-mcp secrets --help') reach every sandbox as "
        "environment variables; their values are replaced by [secret:NAME] in what is "
        "returned, recorded and logged.\n\n"
        "Settings saved by the desktop app (settings.ini in the data folder) apply where no flag "
        "or variable is given; a running server applies their changes from its next run on "
        "(a new engine choice from its next start).");
}

// The flags that are not settings (ServerSettingsSchema has those).
struct CommandLineFlags
{
    QCommandLineOption help{{QStringLiteral("h"), QStringLiteral("help")},
                            QStringLiteral("Show this help and exit.")};
    QCommandLineOption version{{QStringLiteral("V"), QStringLiteral("version")},
                               QStringLiteral("Show the version and exit.")};
    QCommandLineOption passThrough{
        QStringLiteral("pass-through-env"),
        QStringLiteral("Comma-separated names of this server's environment variables to pass into "
                       "every sandbox (by name; values never appear in a command line). May be "
                       "repeated."),
        QStringLiteral("names")};
    QCommandLineOption noHistory{
        QStringLiteral("no-history"),
        QStringLiteral("Record no runs in the history (and leave it untouched).")};
    QCommandLineOption secretsFile{
        QStringLiteral("secrets-file"),
        QStringLiteral("Keep secret values in a private file (mode 0600) in the data folder "
                       "instead of the OS keychain.")};
    QCommandLineOption verbose{{QStringLiteral("v"), QStringLiteral("verbose")},
                               QStringLiteral("Log details to stderr.")};
    HistoryOptions history;
    HttpOptionsParser http;

    // All of them and the settings' flags, in the order --help lists them.
    void addTo(QCommandLineParser& parser) const
    {
        parser.addOptions({help, version});
        ServerSettingsSchema::addFlags(parser, Section::Container);
        parser.addOption(passThrough);
        ServerSettingsSchema::addFlags(parser, Section::Sandbox);
        http.addTo(parser);
        parser.addOptions({history.dataDir(), noHistory});
        ServerSettingsSchema::addFlags(parser, Section::History);
        parser.addOption(secretsFile);
        ServerSettingsSchema::addFlags(parser, Section::Output);
        parser.addOption(verbose);
    }
};

std::optional<QString> readTransport(const CommandLineFlags& flags,
                                     const QCommandLineParser& parser,
                                     const QProcessEnvironment& environment, ServerOptions& options)
{
    bool http = false;
    if (auto problem = flags.http.readTransport(parser, environment, &http))
        return problem;
    options.transport = http ? ServerOptions::Transport::Http : ServerOptions::Transport::Stdio;
    return flags.http.read(parser, environment, http, options.http);
}

// The reference server applies CONTAINER_IMAGE to both tools, so JavaScript ends up fed to a
// Python image; here it replaces only the image of CONTAINER_LANGUAGE's tool, under its flag.
void applyContainerImage(const QCommandLineParser& parser, const QProcessEnvironment& environment,
                         ServerOptions& options)
{
    const QString containerImage = environment.value(QStringLiteral("CONTAINER_IMAGE")).trimmed();
    if (containerImage.isEmpty())
        return;
    const QString languageText = environment.value(QStringLiteral("CONTAINER_LANGUAGE"));
    std::optional<Language> language = LanguageTraits::parse(languageText);
    if (!language) {
        options.warnings << QStringLiteral("CONTAINER_IMAGE is set but CONTAINER_LANGUAGE is "
                                           "\"%1\", not python or javascript: using the image "
                                           "for Python.")
                                .arg(languageText);
        language = Language::Python;
    }
    const ServerSetting* image =
        ServerSettingsSchema::find(*language == Language::Python ? QStringLiteral("python-image")
                                                                 : QStringLiteral("js-image"));
    if (!parser.isSet(image->flag))
        options.setImage(*language, containerImage);
}

// Rules that cannot do what they seem to: the sandbox's own loopback stays in the sandbox
// (NO_PROXY), and this machine's name needs a port.
void warnAboutHostRules(ServerOptions& options)
{
    for (const HostPattern& rule : std::as_const(options.egress.allowedHosts)) {
        if (rule.isExactName() && !rule.port() && HostGateway::isName(rule.toString())) {
            options.warnings << QStringLiteral("--allow-host %1: this machine's services are "
                                               "allowed one port at a time (%1:8000); this rule "
                                               "allows none")
                                    .arg(rule.toString());
            continue;
        }
        for (const QString& own : ContainerRuntime::sandboxOwnHosts()) {
            if (rule.matches(own, rule.port().value_or(80))) {
                options.warnings << QStringLiteral(
                                        "--allow-host %1: a sandbox's %2 is its own loopback, not "
                                        "this machine's; this machine's services are at %3:PORT "
                                        "(allow that instead)")
                                        .arg(rule.toString(), own, HostGateway::name());
                break;
            }
        }
    }
}

std::optional<QString> readPassThrough(const CommandLineFlags& flags,
                                       const QCommandLineParser& parser,
                                       const QProcessEnvironment& environment,
                                       ServerOptions& options)
{
    QSet<QString> seen;
    for (const QString& list : parser.values(flags.passThrough)) {
        for (const QString& rawName : list.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const QString name = rawName.trimmed();
            if (!variableNamePattern().match(name).hasMatch()) {
                return QStringLiteral("--pass-through-env: \"%1\" is not a variable name (give "
                                      "names only; values are read from this server's "
                                      "environment).")
                    .arg(name);
            }
            if (seen.contains(name))
                continue;
            seen.insert(name);
            if (!environment.contains(name)) {
                options.warnings << QStringLiteral("--pass-through-env: %1 is not set in the "
                                                   "server's environment; it is not passed.")
                                        .arg(name);
                continue;
            }
            options.passThroughEnvironment << name;
        }
    }
    return std::nullopt;
}
} // namespace

Expected<ServerOptions> ServerOptionsParser::parse(const QStringList& arguments,
                                                   const QProcessEnvironment& environment)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(description());
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const CommandLineFlags flags;
    flags.addTo(parser);
    if (!parser.parse(arguments))
        return Unexpected(parser.errorText());
    if (!parser.positionalArguments().isEmpty()) {
        return Unexpected(QStringLiteral("Unexpected argument: %1")
                              .arg(parser.positionalArguments().constFirst()));
    }

    ServerOptions options;
    if (parser.isSet(flags.help)) {
        options.action = ServerOptions::Action::ShowHelp;
        options.helpText = parser.helpText();
        return options;
    }
    if (parser.isSet(flags.version)) {
        options.action = ServerOptions::Action::ShowVersion;
        return options;
    }
    options.verbose = parser.isSet(flags.verbose);
    options.arguments = arguments;
    options.environment = environment;
    options.dataDir = HistoryLocation::dataDir(parser.value(flags.history.dataDir()), environment);
    options.historyPath = HistoryLocation::historyPath(options.dataDir);
    options.historyEnabled = !parser.isSet(flags.noHistory);
    options.secretsFile = parser.isSet(flags.secretsFile);

    if (auto problem = readTransport(flags, parser, environment, options))
        return Unexpected(*problem);
    // The user's settings (the desktop app writes them) come under flags and variables.
    if (auto problem = ServerSettingsReader(&parser, environment, options.dataDir)
                           .read(options, options.warnings))
        return Unexpected(*problem);
    // A sandbox that can write the server's data folder can rewrite its own settings (which the
    // server reloads by itself): any share, any network.
    if (const QString problem = SharedFolderText::writableHolding(
            options.policy.sharedFolders, options.dataDir,
            QStringLiteral("the server's data folder (its settings, history and secrets list)"));
        !problem.isEmpty())
        return Unexpected(QStringLiteral("--share: ") + problem);
    if (const QString problem = options.policy.conflict(); !problem.isEmpty())
        return Unexpected(problem);
    warnAboutHostRules(options);
    applyContainerImage(parser, environment, options);
    if (auto problem = readPassThrough(flags, parser, environment, options))
        return Unexpected(*problem);
    return options;
}

} // namespace csm
