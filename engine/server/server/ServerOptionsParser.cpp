#include "server/ServerOptionsParser.h"

#include "core/ByteSize.h"
#include "core/SettingsFile.h"
#include "history/HistoryLocation.h"
#include "history/HistoryOptions.h"
#include "runtime/Language.h"
#include "runtime/RuntimeFactory.h"
#include "server/HttpOptionsParser.h"

#include <QCommandLineParser>
#include <QDir>
#include <QRegularExpression>
#include <QSet>
#include <QThread>

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

namespace csm {

namespace {
const QRegularExpression& variableNamePattern()
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return pattern;
}

std::optional<double> positiveSeconds(const QString& text)
{
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !(value > 0) || value > 86'400)
        return std::nullopt;
    return value;
}

// A flag with an environment variable behind it; the flag wins. `apply` validates the text and
// stores it, or returns what is wrong with it.
struct ValueSetting
{
    QCommandLineOption option;
    QString environmentVariable;
    std::function<std::optional<QString>(const QString&, ServerOptions&)> apply;
};

std::optional<QString> applySize(const QString& text, qint64 minimum, qint64 maximum,
                                 qint64& target)
{
    const auto bytes = ByteSize::parse(text);
    if (!bytes || *bytes < minimum || *bytes > maximum) {
        return QStringLiteral("must be a size from %1 to %2, written like %3 (k, m and g are "
                              "binary units; no unit means bytes)")
            .arg(ByteSize::format(minimum), ByteSize::format(maximum),
                 ByteSize::format(std::max(minimum, std::min<qint64>(maximum, 256LL << 20))));
    }
    target = *bytes;
    return std::nullopt;
}

std::vector<ValueSetting> sandboxSettings(bool& timeoutGiven)
{
    constexpr qint64 MiB = 1024 * 1024;
    const auto option = [](const char* name, const QString& description, const char* valueName) {
        return QCommandLineOption(QString::fromLatin1(name), description,
                                  QString::fromLatin1(valueName));
    };
    std::vector<ValueSetting> settings;
    settings.push_back(
        {option("timeout",
                QStringLiteral("Default timeout of a run in seconds, when a call gives none "
                               "(default 30). Env: CODE_SANDBOX_TIMEOUT."),
                "seconds"),
         QStringLiteral("CODE_SANDBOX_TIMEOUT"),
         [&timeoutGiven](const QString& text, ServerOptions& options) -> std::optional<QString> {
             const auto value = positiveSeconds(text);
             if (!value)
                 return QStringLiteral("must be a positive number of seconds");
             options.defaultTimeoutSeconds = *value;
             timeoutGiven = true;
             return std::nullopt;
         }});
    settings.push_back(
        {option("max-timeout",
                QStringLiteral("Largest timeout_seconds a call may ask for (default 600). Env: "
                               "CODE_SANDBOX_MAX_TIMEOUT."),
                "seconds"),
         QStringLiteral("CODE_SANDBOX_MAX_TIMEOUT"),
         [](const QString& text, ServerOptions& options) -> std::optional<QString> {
             const auto value = positiveSeconds(text);
             if (!value)
                 return QStringLiteral("must be a positive number of seconds");
             options.maxTimeoutSeconds = *value;
             return std::nullopt;
         }});
    settings.push_back(
        {option("memory",
                QStringLiteral("Memory limit of a sandbox, without swap (default 512m). Env: "
                               "CODE_SANDBOX_MEMORY."),
                "size"),
         QStringLiteral("CODE_SANDBOX_MEMORY"), [](const QString& text, ServerOptions& options) {
             return applySize(text, 16 * MiB, 1024 * 1024 * MiB, options.policy.memoryBytes);
         }});
    settings.push_back({option("cpus",
                               QStringLiteral("CPUs a sandbox may use, e.g. 0.5 (default 1). Env: "
                                              "CODE_SANDBOX_CPUS."),
                               "count"),
                        QStringLiteral("CODE_SANDBOX_CPUS"),
                        [](const QString& text, ServerOptions& options) -> std::optional<QString> {
                            bool ok = false;
                            const double cpus = text.toDouble(&ok);
                            const int available = std::max(1, QThread::idealThreadCount());
                            if (!ok || !(cpus >= 0.01) || cpus > available)
                                return QStringLiteral(
                                           "must be a number from 0.01 to %1 (this machine's CPUs)")
                                    .arg(available);
                            options.policy.cpus = cpus;
                            return std::nullopt;
                        }});
    settings.push_back(
        {option("pids-limit",
                QStringLiteral("Processes and threads a sandbox may have at once (default 256). "
                               "Env: CODE_SANDBOX_PIDS_LIMIT."),
                "count"),
         QStringLiteral("CODE_SANDBOX_PIDS_LIMIT"),
         [](const QString& text, ServerOptions& options) -> std::optional<QString> {
             bool ok = false;
             const int pids = text.toInt(&ok);
             // The launcher and the interpreter need a few of their own.
             if (!ok || pids < 8 || pids > 1'000'000)
                 return QStringLiteral("must be a whole number from 8 to 1000000");
             options.policy.pidsLimit = pids;
             return std::nullopt;
         }});
    settings.push_back(
        {option("tmpfs-size",
                QStringLiteral("Size of each writable folder of a sandbox, /tmp and the workdir "
                               "/sandbox (default 64m). Env: CODE_SANDBOX_TMPFS_SIZE."),
                "size"),
         QStringLiteral("CODE_SANDBOX_TMPFS_SIZE"),
         [](const QString& text, ServerOptions& options) {
             return applySize(text, 1 * MiB, 64 * 1024 * MiB, options.policy.tmpfsBytes);
         }});
    settings.push_back(
        {option("network",
                QStringLiteral("Network of a sandbox: bridge (outbound access, the default) or "
                               "none (no network at all). Env: CODE_SANDBOX_NETWORK."),
                "mode"),
         QStringLiteral("CODE_SANDBOX_NETWORK"),
         [](const QString& text, ServerOptions& options) -> std::optional<QString> {
             const QString mode = text.trimmed().toLower();
             if (mode == QLatin1String("host"))
                 return QStringLiteral("\"host\" is refused: it would give sandboxed code the "
                                       "host's network, loopback services included; use bridge "
                                       "or none");
             if (mode != QLatin1String("bridge") && mode != QLatin1String("none"))
                 return QStringLiteral("must be bridge or none");
             options.policy.network = mode;
             return std::nullopt;
         }});
    settings.push_back(
        {option("output-cap",
                QStringLiteral("Most bytes kept of each of stdout and stderr; the rest is "
                               "dropped as it arrives (default 1m). Env: "
                               "CODE_SANDBOX_OUTPUT_CAP."),
                "size"),
         QStringLiteral("CODE_SANDBOX_OUTPUT_CAP"),
         [](const QString& text, ServerOptions& options) {
             return applySize(text, 1024, 64 * MiB, options.policy.outputCapBytes);
         }});
    settings.push_back(
        {option("pool",
                QStringLiteral("Containers per language kept started ahead of calls, so that a "
                               "call skips the container start (default 2; 0 disables). Each runs "
                               "one call only. Env: CODE_SANDBOX_POOL."),
                "count"),
         QStringLiteral("CODE_SANDBOX_POOL"),
         [](const QString& text, ServerOptions& options) -> std::optional<QString> {
             bool ok = false;
             const int size = text.toInt(&ok);
             if (!ok || size < 0 || size > 32)
                 return QStringLiteral("must be a whole number from 0 to 32");
             options.poolSize = size;
             return std::nullopt;
         }});
    settings.push_back(
        {option("pool-idle",
                QStringLiteral("Seconds without a call after which the pool's waiting "
                               "containers are removed (default 600). Env: "
                               "CODE_SANDBOX_POOL_IDLE."),
                "seconds"),
         QStringLiteral("CODE_SANDBOX_POOL_IDLE"),
         [](const QString& text, ServerOptions& options) -> std::optional<QString> {
             bool ok = false;
             const int seconds = text.toInt(&ok);
             if (!ok || seconds < 1 || seconds > 7 * 86'400)
                 return QStringLiteral("must be a whole number of seconds from 1 to 604800");
             options.poolIdleSeconds = seconds;
             return std::nullopt;
         }});
    settings.push_back(
        {option("max-running",
                QStringLiteral("Sandboxes running programs at once; further calls wait in a "
                               "queue (default: twice the CPUs, or fewer if their memory limits "
                               "would not fit in the machine's memory; 0 means that default). "
                               "Env: CODE_SANDBOX_MAX_RUNNING."),
                "count"),
         QStringLiteral("CODE_SANDBOX_MAX_RUNNING"),
         [](const QString& text, ServerOptions& options) -> std::optional<QString> {
             bool ok = false;
             const int count = text.toInt(&ok);
             if (!ok || count < 0 || count > 1024)
                 return QStringLiteral("must be a whole number from 0 (sized from the machine) "
                                       "to 1024");
             options.maxRunning = count;
             return std::nullopt;
         }});
    settings.push_back(
        {option("max-queued",
                QStringLiteral("Calls that may wait for a free sandbox; beyond them a call is "
                               "refused at once with an error (default 128). Env: "
                               "CODE_SANDBOX_MAX_QUEUED."),
                "count"),
         QStringLiteral("CODE_SANDBOX_MAX_QUEUED"),
         [](const QString& text, ServerOptions& options) -> std::optional<QString> {
             bool ok = false;
             const int count = text.toInt(&ok);
             if (!ok || count < 0 || count > 100'000)
                 return QStringLiteral("must be a whole number from 0 to 100000");
             options.maxQueued = count;
             return std::nullopt;
         }});
    return settings;
}

// The settings of what the run history keeps that have a variable (the retention flags, which
// `history prune` shares, are HistoryOptions').
std::vector<ValueSetting> historySettings()
{
    constexpr qint64 MiB = 1024 * 1024;
    std::vector<ValueSetting> settings;
    settings.push_back(
        {QCommandLineOption(QStringLiteral("history-max-field-size"),
                            QStringLiteral("Most bytes of each of a run's code, stdout and stderr "
                                           "kept in the history; the rest is replaced by a note "
                                           "of its size (default 256k). What the client gets is "
                                           "not affected. Env: "
                                           "CODE_SANDBOX_HISTORY_MAX_FIELD_SIZE."),
                            QStringLiteral("size")),
         QStringLiteral("CODE_SANDBOX_HISTORY_MAX_FIELD_SIZE"),
         [](const QString& text, ServerOptions& options) {
             return applySize(text, 1024, 64 * MiB, options.historyMaxFieldBytes);
         }});
    return settings;
}
} // namespace

std::variant<ServerOptions, QString>
ServerOptionsParser::parse(const QStringList& arguments, const QProcessEnvironment& environment)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
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
        "(a new engine choice from its next start)."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help and exit."));
    const QCommandLineOption version({QStringLiteral("V"), QStringLiteral("version")},
                                     QStringLiteral("Show the version and exit."));
    const QCommandLineOption engine(
        QStringLiteral("engine"),
        QStringLiteral("Container engine: podman, docker or auto (podman, then docker). "
                       "Default: $CODE_SANDBOX_ENGINE, else auto."),
        QStringLiteral("name"));
    const QCommandLineOption pythonImage(
        QStringLiteral("python-image"),
        QStringLiteral("Image for run_python_code (default: the locally built "
                       "code-sandbox-python:latest)."),
        QStringLiteral("image"));
    const QCommandLineOption jsImage(
        QStringLiteral("js-image"),
        QStringLiteral(
            "Image for run_js_code (default: the locally built code-sandbox-js:latest)."),
        QStringLiteral("image"));
    const QCommandLineOption passThrough(
        QStringLiteral("pass-through-env"),
        QStringLiteral("Comma-separated names of this server's environment variables to pass into "
                       "every sandbox (by name; values never appear in a command line). May be "
                       "repeated."),
        QStringLiteral("names"));
    bool timeoutGiven = false;
    std::vector<ValueSetting> settings = sandboxSettings(timeoutGiven);
    const std::vector<ValueSetting> historyValues = historySettings();
    const HistoryOptions historyOptions;
    const QCommandLineOption noHistory(
        QStringLiteral("no-history"),
        QStringLiteral("Record no runs in the history (and leave it untouched)."));
    const QCommandLineOption secretsFile(
        QStringLiteral("secrets-file"),
        QStringLiteral("Keep secret values in a private file (mode 0600) in the data folder "
                       "instead of the OS keychain."));
    const QCommandLineOption noRedact(
        QStringLiteral("no-redact"),
        QStringLiteral("Return secret values that a program prints as they are, instead of "
                       "[secret:NAME]. The history and the logs stay redacted."));
    const QCommandLineOption allowUnlimited(
        QStringLiteral("allow-unlimited"),
        QStringLiteral("Run programs even where the container engine ignores the memory, process "
                       "or CPU limit (rootless Podman on cgroup v1 does); each such run says so "
                       "and is recorded so. Without it such a sandbox refuses to run. Env: "
                       "CODE_SANDBOX_ALLOW_UNLIMITED=1."));
    const QCommandLineOption verbose({QStringLiteral("v"), QStringLiteral("verbose")},
                                     QStringLiteral("Log details to stderr."));
    const HttpOptionsParser httpOptions;
    parser.addOptions({help, version, engine, pythonImage, jsImage, passThrough});
    for (const ValueSetting& setting : settings)
        parser.addOption(setting.option);
    httpOptions.addTo(parser);
    parser.addOptions({historyOptions.dataDir(), noHistory});
    parser.addOptions(historyOptions.retentionOptions());
    for (const ValueSetting& setting : historyValues)
        parser.addOption(setting.option);
    parser.addOptions({secretsFile, noRedact, allowUnlimited, verbose});

    if (!parser.parse(arguments))
        return parser.errorText();
    if (!parser.positionalArguments().isEmpty()) {
        return QStringLiteral("Unexpected argument: %1")
            .arg(parser.positionalArguments().constFirst());
    }

    ServerOptions options;
    if (parser.isSet(help)) {
        options.action = ServerOptions::Action::ShowHelp;
        options.helpText = parser.helpText();
        return options;
    }
    if (parser.isSet(version)) {
        options.action = ServerOptions::Action::ShowVersion;
        return options;
    }
    options.verbose = parser.isSet(verbose);
    options.arguments = arguments;
    options.environment = environment;
    options.dataDir = HistoryLocation::dataDir(parser.value(historyOptions.dataDir()), environment);
    options.historyPath = HistoryLocation::historyPath(options.dataDir);
    // The user's settings (the desktop app writes them) come under flags and variables. A bad
    // stored value is ignored with a warning: the file is not this command line's fault.
    const SettingsFile stored(options.dataDir);
    const auto storedProblem = [&options](const QString& key, const QString& text,
                                          const QString& problem) {
        options.warnings << QStringLiteral("%1: %2 \"%3\" ignored: %4")
                                .arg(QDir::toNativeSeparators(SettingsFile::path(options.dataDir)),
                                     key, text, problem);
    };

    bool http = false;
    if (auto problem = httpOptions.readTransport(parser, environment, &http))
        return *problem;
    options.transport = http ? ServerOptions::Transport::Http : ServerOptions::Transport::Stdio;
    if (auto problem = httpOptions.read(parser, environment, http, options.http))
        return *problem;

    const auto engineName = [](const QString& text) {
        const QString name = text.trimmed().toLower();
        return name == QLatin1String("auto") ? QString() : name;
    };
    if (parser.isSet(engine) || environment.contains(QStringLiteral("CODE_SANDBOX_ENGINE"))) {
        options.engine = engineName(parser.isSet(engine)
                                        ? parser.value(engine)
                                        : environment.value(QStringLiteral("CODE_SANDBOX_ENGINE")));
        if (!RuntimeFactory::isKnownEngine(options.engine))
            return QStringLiteral("Unknown engine \"%1\": use podman, docker or auto.")
                .arg(options.engine);
    } else if (stored.contains(QStringLiteral("engine"))) {
        const QString text = stored.value(QStringLiteral("engine"));
        if (RuntimeFactory::isKnownEngine(engineName(text)))
            options.engine = engineName(text);
        else
            storedProblem(QStringLiteral("engine"), text,
                          QStringLiteral("use podman, docker or auto"));
    }

    options.pythonImage = stored.value(QStringLiteral("python-image")).trimmed();
    options.jsImage = stored.value(QStringLiteral("js-image")).trimmed();

    // The reference server applies CONTAINER_IMAGE to both tools, so JavaScript ends up fed to
    // a Python image; here it replaces only the image of CONTAINER_LANGUAGE's tool.
    const QString containerImage = environment.value(QStringLiteral("CONTAINER_IMAGE")).trimmed();
    if (!containerImage.isEmpty()) {
        const QString languageText = environment.value(QStringLiteral("CONTAINER_LANGUAGE"));
        std::optional<Language> language = LanguageTraits::parse(languageText);
        if (!language) {
            options.warnings << QStringLiteral("CONTAINER_IMAGE is set but CONTAINER_LANGUAGE is "
                                               "\"%1\", not python or javascript: using the image "
                                               "for Python.")
                                    .arg(languageText);
            language = Language::Python;
        }
        (*language == Language::Python ? options.pythonImage : options.jsImage) = containerImage;
    }
    if (parser.isSet(pythonImage))
        options.pythonImage = parser.value(pythonImage).trimmed();
    if (parser.isSet(jsImage))
        options.jsImage = parser.value(jsImage).trimmed();

    QSet<QString> seen;
    for (const QString& list : parser.values(passThrough)) {
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

    // Read like the others; listed apart in --help, with the history's flags.
    settings.insert(settings.end(), historyValues.cbegin(), historyValues.cend());
    for (const ValueSetting& setting : settings) {
        const QString name = setting.option.names().constFirst();
        const bool fromFlag = parser.isSet(setting.option);
        if (!fromFlag && !environment.contains(setting.environmentVariable)) {
            if (!stored.contains(name))
                continue;
            const QString text = stored.value(name);
            if (const auto problem = setting.apply(text, options))
                storedProblem(name, text, *problem);
            continue;
        }
        const QString text = fromFlag ? parser.value(setting.option)
                                      : environment.value(setting.environmentVariable);
        if (const auto problem = setting.apply(text, options)) {
            return QStringLiteral("%1 \"%2\": %3")
                .arg(fromFlag ? QStringLiteral("--") + name : setting.environmentVariable, text,
                     *problem);
        }
    }
    options.secretsFile = parser.isSet(secretsFile);
    options.redactOutput = !parser.isSet(noRedact);
    if (options.redactOutput && stored.contains(QStringLiteral("redact"))) {
        const QString text = stored.value(QStringLiteral("redact")).trimmed().toLower();
        if (text == QLatin1String("false"))
            options.redactOutput = false;
        else if (text != QLatin1String("true"))
            storedProblem(QStringLiteral("redact"), text, QStringLiteral("must be true or false"));
    }
    const QString allowVariable = QStringLiteral("CODE_SANDBOX_ALLOW_UNLIMITED");
    if (parser.isSet(allowUnlimited)) {
        options.policy.allowUnenforcedLimits = true;
    } else if (environment.contains(allowVariable)) {
        const QString text = environment.value(allowVariable).trimmed().toLower();
        if (text == QLatin1String("1") || text == QLatin1String("true"))
            options.policy.allowUnenforcedLimits = true;
        else if (text != QLatin1String("0") && text != QLatin1String("false") && !text.isEmpty())
            return QStringLiteral("%1 \"%2\": must be 1 or 0").arg(allowVariable, text);
    } else if (stored.contains(QStringLiteral("allow-unlimited"))) {
        const QString text = stored.value(QStringLiteral("allow-unlimited")).trimmed().toLower();
        if (text == QLatin1String("true"))
            options.policy.allowUnenforcedLimits = true;
        else if (text != QLatin1String("false"))
            storedProblem(QStringLiteral("allow-unlimited"), text,
                          QStringLiteral("must be true or false"));
    }
    options.historyEnabled = !parser.isSet(noHistory);
    QList<HistoryOptions::StoredProblem> storedRetentionProblems;
    auto retention = historyOptions.retention(parser, &stored, &storedRetentionProblems);
    if (const auto* problem = std::get_if<QString>(&retention))
        return *problem;
    options.historyRetention = std::get<RetentionPolicy>(retention);
    for (const HistoryOptions::StoredProblem& problem : std::as_const(storedRetentionProblems))
        storedProblem(problem.key, problem.text, problem.problem);

    if (!timeoutGiven) {
        // Only a maximum below the built-in default: the default follows it down.
        options.defaultTimeoutSeconds =
            std::min(options.defaultTimeoutSeconds, options.maxTimeoutSeconds);
    }
    const auto givenHere = [&](const QString& name) {
        const auto it = std::find_if(settings.cbegin(), settings.cend(), [&](const auto& setting) {
            return setting.option.names().constFirst() == name;
        });
        return parser.isSet(it->option) || environment.contains(it->environmentVariable);
    };
    const bool timeoutHere = givenHere(QStringLiteral("timeout"));
    const bool maxHere = givenHere(QStringLiteral("max-timeout"));
    const bool timeoutStored = !timeoutHere && stored.contains(QStringLiteral("timeout"));
    const bool maxStored = !maxHere && stored.contains(QStringLiteral("max-timeout"));
    if (options.defaultTimeoutSeconds > options.maxTimeoutSeconds && (timeoutStored || maxStored)) {
        // One of the two comes from the settings file, which gives way: a value from this
        // command line (or environment) wins, and the file alone cannot stop a server.
        if (!timeoutStored) {
            storedProblem(QStringLiteral("max-timeout"), QString::number(options.maxTimeoutSeconds),
                          QStringLiteral("below --timeout (%1 s), which is the maximum instead")
                              .arg(options.defaultTimeoutSeconds));
            options.maxTimeoutSeconds = options.defaultTimeoutSeconds;
        } else {
            storedProblem(QStringLiteral("timeout"), QString::number(options.defaultTimeoutSeconds),
                          QStringLiteral("above max-timeout (%1 s), which is used instead")
                              .arg(options.maxTimeoutSeconds));
            options.defaultTimeoutSeconds = options.maxTimeoutSeconds;
        }
    }
    if (options.defaultTimeoutSeconds > options.maxTimeoutSeconds) {
        return QStringLiteral("--timeout (%1 s) is larger than --max-timeout (%2 s).")
            .arg(options.defaultTimeoutSeconds)
            .arg(options.maxTimeoutSeconds);
    }
    return options;
}

} // namespace csm
