#include "server/ServerSettingsSchema.h"

#include "core/ByteSize.h"
#include "history/HistoryOptions.h"
#include "runtime/RuntimeFactory.h"
#include "runtime/SharedFolderText.h"
#include "server/ServerSettingBounds.h"
#include "server/ServerSettings.h"

#include <QCommandLineParser>
#include <QRegularExpression>
#include <QThread>

#include <algorithm>
#include <memory>
#include <tuple>

namespace csm {

namespace {
using Section = ServerSetting::Section;
using Problem = std::optional<QString>;
using namespace ServerSettingBounds;

QCommandLineOption valueFlag(const char* name, const QString& description, const char* valueName)
{
    return QCommandLineOption(QString::fromLatin1(name), description,
                              QString::fromLatin1(valueName));
}

QString boolText(bool value)
{
    return value ? QStringLiteral("true") : QStringLiteral("false");
}

Problem readBool(const QString& text, bool& target)
{
    const QString word = text.trimmed().toLower();
    if (word != QLatin1String("true") && word != QLatin1String("false"))
        return QStringLiteral("must be true or false");
    target = word == QLatin1String("true");
    return std::nullopt;
}

Problem readSeconds(const QString& text, double& target)
{
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !(value > 0) || value > kMaxTimeoutSeconds)
        return QStringLiteral("must be a positive number of seconds");
    target = value;
    return std::nullopt;
}

// One host pattern a line (the file's repeated key, or a variable), each checked.
Problem readHostPatterns(const QString& text, QList<HostPattern>& target)
{
    QList<HostPattern> hosts;
    for (const QString& line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        if (line.trimmed().isEmpty())
            continue;
        auto pattern = HostPattern::parse(line.trimmed());
        if (!pattern)
            return QStringLiteral("\"%1\": %2").arg(line.trimmed(), pattern.error());
        hosts.append(*pattern);
    }
    target = hosts;
    return std::nullopt;
}

QString hostPatternLines(const QList<HostPattern>& hosts)
{
    QStringList lines;
    for (const HostPattern& host : hosts)
        lines.append(host.toString());
    return lines.join(QLatin1Char('\n'));
}

Problem readSize(const QString& text, qint64 minimum, qint64 maximum, qint64& target)
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

// A whole number from `minimum` to `maximum`; `problem` says so otherwise.
Problem readCount(const QString& text, int minimum, int maximum, const QString& problem,
                  int& target)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < minimum || value > maximum)
        return problem;
    target = value;
    return std::nullopt;
}

QString engineName(const QString& text)
{
    const QString name = text.trimmed().toLower();
    return name == QLatin1String("auto") ? QString() : name;
}

std::vector<ServerSetting> containerSettings()
{
    std::vector<ServerSetting> list;
    ServerSetting engine{
        Section::Container,
        QStringLiteral("engine"),
        valueFlag("engine",
                  QStringLiteral("Container engine: podman, docker or auto (podman, then docker). "
                                 "Default: $CODE_SANDBOX_ENGINE, else auto."),
                  "name"),
        QStringLiteral("CODE_SANDBOX_ENGINE"),
        {},
        [](const QString& text, ServerSettings& settings) -> Problem {
            if (!RuntimeFactory::isKnownEngine(engineName(text)))
                return QStringLiteral("use podman, docker or auto");
            settings.engine = engineName(text);
            return std::nullopt;
        },
        [](const ServerSettings& settings) {
            return settings.engine.isEmpty() ? QStringLiteral("auto") : settings.engine;
        },
        [](const QString& text) {
            return QStringLiteral("Unknown engine \"%1\": use podman, docker or auto.")
                .arg(engineName(text));
        },
    };
    list.push_back(std::move(engine));
    list.push_back({
        Section::Container,
        QStringLiteral("engine-host"),
        valueFlag("engine-host",
                  QStringLiteral("Where the engine is: a URL (ssh://me@build, tcp://build:2376, "
                                 "unix:///path/podman.sock) or a Docker context or Podman "
                                 "connection name. Default: $CODE_SANDBOX_ENGINE_HOST, else "
                                 "where the engine's own CLI goes (DOCKER_HOST, CONTAINER_HOST, "
                                 "its configuration)."),
                  "address"),
        QStringLiteral("CODE_SANDBOX_ENGINE_HOST"),
        {},
        [](const QString& text, ServerSettings& settings) -> Problem {
            const QString address = text.trimmed();
            // A value the CLI would take as an option, or split, is no address.
            if (address.startsWith(QLatin1Char('-')) ||
                address.contains(QRegularExpression(QStringLiteral("\\s"))))
                return QStringLiteral("give a URL or a context or connection name");
            settings.engineHost = address;
            return std::nullopt;
        },
        [](const ServerSettings& settings) { return settings.engineHost; },
        {},
    });
    list.push_back({
        Section::Container,
        QStringLiteral("engine-location"),
        valueFlag("engine-location",
                  QStringLiteral("Whether the engine's containers see this machine's files: "
                                 "local (bind mounts), remote (the engine's own volumes and "
                                 "streams) or auto (asked once per engine and address, with a "
                                 "container that reads a file made here). Default: "
                                 "$CODE_SANDBOX_ENGINE_LOCATION, else auto."),
                  "where"),
        QStringLiteral("CODE_SANDBOX_ENGINE_LOCATION"),
        {},
        [](const QString& text, ServerSettings& settings) -> Problem {
            const auto choice = EngineLocationChoices::parse(text);
            if (!choice)
                return QStringLiteral("use local, remote or auto");
            settings.engineLocation = *choice;
            return std::nullopt;
        },
        [](const ServerSettings& settings) {
            return EngineLocationChoices::toString(settings.engineLocation);
        },
        {},
        false, // a fix for an engine that cannot be asked, not a setting the app shows
    });
    list.push_back({
        Section::Container,
        QStringLiteral("python-image"),
        valueFlag("python-image",
                  QStringLiteral("Image for run_python_code (default: the locally built "
                                 "code-sandbox-python:latest)."),
                  "image"),
        {},
        {},
        [](const QString& text, ServerSettings& settings) -> Problem {
            settings.setImage(Language::Python, text);
            return std::nullopt;
        },
        [](const ServerSettings& settings) { return settings.image(Language::Python); },
        {},
    });
    list.push_back({
        Section::Container,
        QStringLiteral("js-image"),
        valueFlag("js-image",
                  QStringLiteral(
                      "Image for run_js_code (default: the locally built code-sandbox-js:latest)."),
                  "image"),
        {},
        {},
        [](const QString& text, ServerSettings& settings) -> Problem {
            settings.setImage(Language::JavaScript, text);
            return std::nullopt;
        },
        [](const ServerSettings& settings) { return settings.image(Language::JavaScript); },
        {},
    });
    return list;
}

// A setting with a flag that takes a value and a CODE_SANDBOX_* variable behind it.
ServerSetting valueSetting(Section section, const char* key, const char* valueName,
                           const QString& description, const char* variable,
                           decltype(ServerSetting::read) read, decltype(ServerSetting::write) write)
{
    return {section,
            QString::fromLatin1(key),
            valueFlag(key, description, valueName),
            QString::fromLatin1(variable),
            {},
            std::move(read),
            std::move(write),
            {}};
}

std::vector<ServerSetting> sandboxSettings()
{
    std::vector<ServerSetting> list;
    const auto add = [&list](const char* key, const char* valueName, const QString& description,
                             const char* variable, decltype(ServerSetting::read) read,
                             decltype(ServerSetting::write) write) {
        list.push_back(valueSetting(Section::Sandbox, key, valueName, description, variable,
                                    std::move(read), std::move(write)));
    };
    add(
        "timeout", "seconds",
        QStringLiteral("Default timeout of a run in seconds, when a call gives none "
                       "(default 30). Env: CODE_SANDBOX_TIMEOUT."),
        "CODE_SANDBOX_TIMEOUT",
        [](const QString& text, ServerSettings& settings) {
            return readSeconds(text, settings.defaultTimeoutSeconds);
        },
        [](const ServerSettings& settings) {
            return QString::number(settings.defaultTimeoutSeconds);
        });
    add(
        "max-timeout", "seconds",
        QStringLiteral("Largest timeout_seconds a call may ask for (default 600). Env: "
                       "CODE_SANDBOX_MAX_TIMEOUT."),
        "CODE_SANDBOX_MAX_TIMEOUT",
        [](const QString& text, ServerSettings& settings) {
            return readSeconds(text, settings.maxTimeoutSeconds);
        },
        [](const ServerSettings& settings) { return QString::number(settings.maxTimeoutSeconds); });
    add(
        "memory", "size",
        QStringLiteral("Memory limit of a sandbox, without swap (default 512m). Env: "
                       "CODE_SANDBOX_MEMORY."),
        "CODE_SANDBOX_MEMORY",
        [](const QString& text, ServerSettings& settings) {
            return readSize(text, kMinMemory, kMaxMemory, settings.policy.memoryBytes);
        },
        [](const ServerSettings& settings) {
            return ByteSize::format(settings.policy.memoryBytes);
        });
    add(
        "cpus", "count",
        QStringLiteral("CPUs a sandbox may use, e.g. 0.5 (default 1). Env: CODE_SANDBOX_CPUS."),
        "CODE_SANDBOX_CPUS",
        [](const QString& text, ServerSettings& settings) -> Problem {
            bool ok = false;
            const double cpus = text.toDouble(&ok);
            const int available = std::max(1, QThread::idealThreadCount());
            if (!ok || !(cpus >= 0.01) || cpus > available)
                return QStringLiteral("must be a number from 0.01 to %1 (this machine's CPUs)")
                    .arg(available);
            settings.policy.cpus = cpus;
            return std::nullopt;
        },
        [](const ServerSettings& settings) { return QString::number(settings.policy.cpus); });
    add(
        "pids-limit", "count",
        QStringLiteral("Processes and threads a sandbox may have at once (default 256). "
                       "Env: CODE_SANDBOX_PIDS_LIMIT."),
        "CODE_SANDBOX_PIDS_LIMIT",
        [](const QString& text, ServerSettings& settings) {
            return readCount(
                text, kMinPids, kMaxPids,
                QStringLiteral("must be a whole number from %1 to %2").arg(kMinPids).arg(kMaxPids),
                settings.policy.pidsLimit);
        },
        [](const ServerSettings& settings) { return QString::number(settings.policy.pidsLimit); });
    add(
        "tmpfs-size", "size",
        QStringLiteral("Size of each writable folder of a sandbox, /tmp and the workdir "
                       "/sandbox (default 64m). Env: CODE_SANDBOX_TMPFS_SIZE."),
        "CODE_SANDBOX_TMPFS_SIZE",
        [](const QString& text, ServerSettings& settings) {
            return readSize(text, kMinTmpfs, kMaxTmpfs, settings.policy.tmpfsBytes);
        },
        [](const ServerSettings& settings) {
            return ByteSize::format(settings.policy.tmpfsBytes);
        });
    add(
        "isolation", "tier",
        QStringLiteral("The kernel sandboxed code talks to. standard (the default): this "
                       "machine's, behind the seccomp profile. gvisor: gVisor's user-space kernel "
                       "(runsc) in between, for code nobody has read; with Podman as root, or "
                       "Docker with gVisor registered as code-sandbox-gvisor (doctor says how). "
                       "A sandbox that cannot start under gVisor fails; it never runs with less. "
                       "Env: CODE_SANDBOX_ISOLATION."),
        "CODE_SANDBOX_ISOLATION",
        [](const QString& text, ServerSettings& settings) -> Problem {
            const auto isolation = kIsolations.fromString(text.trimmed().toLower());
            if (!isolation) {
                return QStringLiteral("must be one of %1")
                    .arg(kIsolations.names().join(QStringLiteral(", ")));
            }
            settings.policy.isolation = *isolation;
            return std::nullopt;
        },
        [](const ServerSettings& settings) {
            return kIsolations.toString(settings.policy.isolation);
        });
    // An image's own tier, where it needs another than --isolation: empty for the same.
    for (const auto& [key, variable, language] :
         {std::tuple{"python-isolation", "CODE_SANDBOX_PYTHON_ISOLATION", Language::Python},
          std::tuple{"js-isolation", "CODE_SANDBOX_JS_ISOLATION", Language::JavaScript}}) {
        add(
            key, "tier",
            QStringLiteral("The tier of %1's sandboxes, where its image needs another than "
                           "--isolation's: standard or gvisor (default: --isolation's). Env: %2.")
                .arg(LanguageTraits::displayName(language), QLatin1String(variable)),
            variable,
            [language](const QString& text, ServerSettings& settings) -> Problem {
                const QString value = text.trimmed().toLower();
                if (value.isEmpty()) {
                    settings.policy.ownIsolation(language).reset();
                    return std::nullopt;
                }
                const auto isolation = kIsolations.fromString(value);
                if (!isolation) {
                    return QStringLiteral("must be one of %1, or empty for --isolation's")
                        .arg(kIsolations.names().join(QStringLiteral(", ")));
                }
                settings.policy.ownIsolation(language) = *isolation;
                return std::nullopt;
            },
            [language](const ServerSettings& settings) {
                const std::optional<Isolation>& tier = settings.policy.ownIsolation(language);
                return tier ? kIsolations.toString(*tier) : QString();
            });
    }
    add(
        "network", "mode",
        QStringLiteral("Older name for --egress none and --egress bridge. Env: "
                       "CODE_SANDBOX_NETWORK."),
        "CODE_SANDBOX_NETWORK",
        [](const QString& text, ServerSettings& settings) -> Problem {
            const QString mode = text.trimmed().toLower();
            if (mode == QLatin1String("host"))
                return QStringLiteral("\"host\" is refused: it would give sandboxed code the "
                                      "host's network, loopback services included; use "
                                      "--egress open, allowlist, ask, none or bridge");
            if (mode != QLatin1String("bridge") && mode != QLatin1String("none"))
                return QStringLiteral("must be bridge or none (or use --egress)");
            settings.setEgressMode(mode == QLatin1String("none") ? EgressMode::None
                                                                 : EgressMode::Bridge);
            return std::nullopt;
        },
        [](const ServerSettings& settings) { return settings.policy.network; });
    // The app saves --egress; a settings file that still says network= is read before it.
    list.back().saved = false;
    add(
        "egress", "mode",
        QStringLiteral("How sandboxes reach the network. open (the default): through this "
                       "server's proxy, to any public host; loopback, private networks, the "
                       "cloud metadata address and this machine are refused unless named with "
                       "--allow-host. allowlist: only the --allow-host hosts. ask: the desktop "
                       "app asks about each new host (elsewhere: refused). none: no network. "
                       "bridge: the engine's bridge, unfiltered, everything this machine "
                       "reaches. Env: CODE_SANDBOX_EGRESS."),
        "CODE_SANDBOX_EGRESS",
        [](const QString& text, ServerSettings& settings) -> Problem {
            const auto mode = EgressModes::fromString(text.trimmed().toLower());
            if (!mode) {
                return QStringLiteral("must be one of %1")
                    .arg(EgressModes::names().join(QStringLiteral(", ")));
            }
            settings.setEgressMode(*mode);
            return std::nullopt;
        },
        [](const ServerSettings& settings) { return EgressModes::toString(settings.egress.mode); });
    add(
        "allow-host", "host[:port]",
        QStringLiteral("A host sandboxes may reach through the proxy: a name, *.domain (its "
                       "subdomains) or an address, with an optional :port. The only ones "
                       "reachable with --egress allowlist; with open or ask, the way to reach a "
                       "private or loopback host. This machine's services: "
                       "host.containers.internal:PORT. May be repeated. Env: "
                       "CODE_SANDBOX_ALLOW_HOST (one a line)."),
        "CODE_SANDBOX_ALLOW_HOST",
        [](const QString& text, ServerSettings& settings) -> Problem {
            return readHostPatterns(text, settings.egress.allowedHosts);
        },
        [](const ServerSettings& settings) {
            return hostPatternLines(settings.egress.allowedHosts);
        });
    list.back().repeatable = true;
    add(
        "always-allow", "host[:port]",
        QStringLiteral("With --egress ask: a host that is not asked about, at public addresses "
                       "only (unlike --allow-host, a private or loopback address it resolves to "
                       "is still refused). The desktop app adds one when you choose \"Always "
                       "allow\". May be repeated. Env: CODE_SANDBOX_ALWAYS_ALLOW (one a line)."),
        "CODE_SANDBOX_ALWAYS_ALLOW",
        [](const QString& text, ServerSettings& settings) -> Problem {
            return readHostPatterns(text, settings.egress.alwaysAllowed);
        },
        [](const ServerSettings& settings) {
            return hostPatternLines(settings.egress.alwaysAllowed);
        });
    list.back().repeatable = true;
    add(
        "share", "dir[:name][:ro|rw]",
        QStringLiteral("Share a host folder with every sandbox at /data/NAME (NAME defaults to "
                       "the folder's name), read-only unless :rw is given; the tool description "
                       "lists it. May be repeated. Env: CODE_SANDBOX_SHARE (one a line)."),
        "CODE_SANDBOX_SHARE",
        [](const QString& text, ServerSettings& settings) -> Problem {
            auto folders = SharedFolderText::parseList(text);
            if (!folders)
                return folders.error();
            settings.policy.sharedFolders = *folders;
            return std::nullopt;
        },
        [](const ServerSettings& settings) {
            return SharedFolderText::formatList(settings.policy.sharedFolders);
        });
    list.back().repeatable = true;
    add(
        "output-cap", "size",
        QStringLiteral("Most bytes kept of each of stdout and stderr; the rest is "
                       "dropped as it arrives (default 1m). Env: "
                       "CODE_SANDBOX_OUTPUT_CAP."),
        "CODE_SANDBOX_OUTPUT_CAP",
        [](const QString& text, ServerSettings& settings) {
            return readSize(text, kMinOutputCap, kMaxOutputCap, settings.policy.outputCapBytes);
        },
        [](const ServerSettings& settings) {
            return ByteSize::format(settings.policy.outputCapBytes);
        });
    add(
        "pool", "count",
        QStringLiteral("Containers per language kept started ahead of calls, so that a "
                       "call skips the container start (default 2; 0 disables); more while "
                       "calls find none ready, up to --max-running. Each runs one call only. "
                       "Env: CODE_SANDBOX_POOL."),
        "CODE_SANDBOX_POOL",
        [](const QString& text, ServerSettings& settings) {
            return readCount(text, 0, kMaxPool,
                             QStringLiteral("must be a whole number from 0 to 32"),
                             settings.poolSize);
        },
        [](const ServerSettings& settings) { return QString::number(settings.poolSize); });
    add(
        "pool-idle", "seconds",
        QStringLiteral("Seconds without a call after which the pool's waiting "
                       "containers are removed (default 600). Env: "
                       "CODE_SANDBOX_POOL_IDLE."),
        "CODE_SANDBOX_POOL_IDLE",
        [](const QString& text, ServerSettings& settings) {
            return readCount(text, 1, kMaxPoolIdleSeconds,
                             QStringLiteral("must be a whole number of seconds from 1 to 604800"),
                             settings.poolIdleSeconds);
        },
        [](const ServerSettings& settings) { return QString::number(settings.poolIdleSeconds); });
    add(
        "interpreter-idle", "seconds",
        QStringLiteral("Seconds without a cell after which a persistent session (run_*_code's "
                       "\"session\") ends and its state is lost (default 900). Env: "
                       "CODE_SANDBOX_INTERPRETER_IDLE."),
        "CODE_SANDBOX_INTERPRETER_IDLE",
        [](const QString& text, ServerSettings& settings) {
            return readCount(text, kMinInterpreterIdleSeconds, kMaxInterpreterIdleSeconds,
                             QStringLiteral("must be a whole number of seconds from 10 to 604800"),
                             settings.interpreterIdleSeconds);
        },
        [](const ServerSettings& settings) {
            return QString::number(settings.interpreterIdleSeconds);
        });
    add(
        "max-interpreters", "count",
        QStringLiteral("Persistent sessions this server keeps live for all its clients; each "
                       "holds a container and its memory (default 16; 0 turns sessions off). "
                       "Env: CODE_SANDBOX_MAX_INTERPRETERS."),
        "CODE_SANDBOX_MAX_INTERPRETERS",
        [](const QString& text, ServerSettings& settings) {
            return readCount(text, 0, kMaxInterpreters,
                             QStringLiteral("must be a whole number from 0 to 256"),
                             settings.maxInterpreters);
        },
        [](const ServerSettings& settings) { return QString::number(settings.maxInterpreters); });
    add(
        "max-client-interpreters", "count",
        QStringLiteral("Persistent sessions each client may keep live at once (default 4). "
                       "Env: CODE_SANDBOX_MAX_CLIENT_INTERPRETERS."),
        "CODE_SANDBOX_MAX_CLIENT_INTERPRETERS",
        [](const QString& text, ServerSettings& settings) {
            return readCount(text, 1, kMaxInterpreters,
                             QStringLiteral("must be a whole number from 1 to 256"),
                             settings.maxClientInterpreters);
        },
        [](const ServerSettings& settings) {
            return QString::number(settings.maxClientInterpreters);
        });
    add(
        "max-running", "count",
        QStringLiteral("Sandboxes running programs at once; further calls wait in a "
                       "queue (default: twice the CPUs, or fewer if their memory limits "
                       "would not fit in the machine's memory; 0 means that default). "
                       "Env: CODE_SANDBOX_MAX_RUNNING."),
        "CODE_SANDBOX_MAX_RUNNING",
        [](const QString& text, ServerSettings& settings) {
            return readCount(text, 0, kMaxRunning,
                             QStringLiteral("must be a whole number from 0 (sized from the "
                                            "machine) to 1024"),
                             settings.maxRunning);
        },
        [](const ServerSettings& settings) { return QString::number(settings.maxRunning); });
    add(
        "max-queued", "count",
        QStringLiteral("Calls that may wait for a free sandbox; beyond them a call is "
                       "refused at once with an error (default 128). Env: "
                       "CODE_SANDBOX_MAX_QUEUED."),
        "CODE_SANDBOX_MAX_QUEUED",
        [](const QString& text, ServerSettings& settings) {
            return readCount(text, 0, 100'000,
                             QStringLiteral("must be a whole number from 0 to 100000"),
                             settings.maxQueued);
        },
        [](const ServerSettings& settings) { return QString::number(settings.maxQueued); });
    list.back().saved = false;
    return list;
}

// The retention flags are HistoryOptions', which `history prune` shares.
std::vector<ServerSetting> historySettings()
{
    const auto history = std::make_shared<const HistoryOptions>();
    const auto retention = [history](const QCommandLineOption& flag,
                                     decltype(ServerSetting::write) write) {
        const QString key = flag.names().constFirst();
        return ServerSetting{
            Section::History,
            key,
            flag,
            {},
            {},
            [history, key](const QString& text, ServerSettings& settings) {
                return history->applyLimit(key, text, settings.historyRetention);
            },
            std::move(write),
            {},
        };
    };
    std::vector<ServerSetting> list;
    list.push_back(retention(history->maxRuns(), [](const ServerSettings& settings) {
        return QString::number(settings.historyRetention.maxRuns);
    }));
    list.push_back(retention(history->maxDays(), [](const ServerSettings& settings) {
        return QString::number(settings.historyRetention.maxAgeDays);
    }));
    // Whole MiB, as the flag takes it (the form shows no finer unit).
    list.push_back(retention(history->maxMb(), [](const ServerSettings& settings) {
        return QString::number(settings.historyRetention.maxTotalBytes / RetentionPolicy::kMiB);
    }));
    list.push_back(retention(history->filesMaxMb(), [](const ServerSettings& settings) {
        return QString::number(settings.historyRetention.maxFilesBytes / RetentionPolicy::kMiB);
    }));
    list.push_back(valueSetting(
        Section::History, "history-max-field-size", "size",
        QStringLiteral("Most bytes of each of a run's code, stdout and stderr kept in the "
                       "history; the rest is replaced by a note of its size (default 256k). What "
                       "the client gets is not affected. Env: "
                       "CODE_SANDBOX_HISTORY_MAX_FIELD_SIZE."),
        "CODE_SANDBOX_HISTORY_MAX_FIELD_SIZE",
        [](const QString& text, ServerSettings& settings) {
            return readSize(text, kMinHistoryField, kMaxHistoryField,
                            settings.historyMaxFieldBytes);
        },
        [](const ServerSettings& settings) {
            return ByteSize::format(settings.historyMaxFieldBytes);
        }));
    return list;
}

std::vector<ServerSetting> outputSettings()
{
    std::vector<ServerSetting> list;
    list.push_back({
        Section::Output,
        QStringLiteral("redact"),
        QCommandLineOption(
            QStringLiteral("no-redact"),
            QStringLiteral("Return secret values that a program prints as they are, instead of "
                           "[secret:NAME]. The history and the logs stay redacted.")),
        {},
        QStringLiteral("false"),
        [](const QString& text, ServerSettings& settings) {
            return readBool(text, settings.redactOutput);
        },
        [](const ServerSettings& settings) { return boolText(settings.redactOutput); },
        {},
    });
    list.push_back({
        Section::Output,
        QStringLiteral("allow-unlimited"),
        QCommandLineOption(
            QStringLiteral("allow-unlimited"),
            QStringLiteral("Run programs even where the container engine ignores the memory, "
                           "process or CPU limit (rootless Podman on cgroup v1 does); each such "
                           "run says so and is recorded so. Without it such a sandbox refuses to "
                           "run. Env: CODE_SANDBOX_ALLOW_UNLIMITED=1.")),
        QStringLiteral("CODE_SANDBOX_ALLOW_UNLIMITED"),
        QStringLiteral("true"),
        [](const QString& text, ServerSettings& settings) {
            return readBool(text, settings.policy.allowUnenforcedLimits);
        },
        [](const ServerSettings& settings) {
            return boolText(settings.policy.allowUnenforcedLimits);
        },
        {},
    });
    return list;
}
} // namespace

const std::vector<ServerSetting>& ServerSettingsSchema::settings()
{
    static const std::vector<ServerSetting> all = [] {
        std::vector<ServerSetting> list;
        for (auto&& section :
             {containerSettings(), sandboxSettings(), historySettings(), outputSettings()})
            list.insert(list.end(), section.cbegin(), section.cend());
        return list;
    }();
    return all;
}

const ServerSetting* ServerSettingsSchema::find(const QString& key)
{
    const auto& all = settings();
    const auto it = std::find_if(all.cbegin(), all.cend(), [&key](const ServerSetting& setting) {
        return setting.key == key;
    });
    return it == all.cend() ? nullptr : &*it;
}

void ServerSettingsSchema::addFlags(QCommandLineParser& parser, ServerSetting::Section section)
{
    for (const ServerSetting& setting : settings()) {
        if (setting.section == section)
            parser.addOption(setting.flag);
    }
}

} // namespace csm
