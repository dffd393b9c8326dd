#include "server/ServerSettingsForm.h"

#include "egress/EgressSettings.h"
#include "runtime/Isolation.h"
#include "server/ServerSettingBounds.h"

#include <QThread>

#include <algorithm>
#include <tuple>

namespace csm {

namespace {

using namespace ServerSettingBounds;
using Kind = SettingFormField::Kind;

// A field of `kind` in `group`.
SettingFormField make(Kind kind, const char* key, const QString& group, const QString& label,
                      const char* objectName)
{
    SettingFormField field;
    field.key = QString::fromLatin1(key);
    field.kind = kind;
    field.group = group;
    field.label = label;
    field.objectName = QString::fromLatin1(objectName);
    return field;
}

// A whole number in `group`.
SettingFormField number(const char* key, const QString& group, const QString& label,
                        const char* objectName, double minimum, double maximum,
                        const QString& suffix, const QString& toolTip)
{
    SettingFormField field = make(Kind::Number, key, group, label, objectName);
    field.minimum = minimum;
    field.maximum = maximum;
    field.suffix = suffix;
    field.toolTip = toolTip;
    return field;
}

SettingFormField size(const char* key, const QString& group, const QString& label,
                      const char* objectName, qint64 minimum, qint64 maximum,
                      QList<SettingFormField::Unit> units, const QString& toolTip)
{
    SettingFormField field =
        number(key, group, label, objectName, double(minimum), double(maximum), {}, toolTip);
    field.kind = Kind::Size;
    field.units = std::move(units);
    return field;
}

SettingFormField switchField(const char* key, const QString& group, const QString& label,
                             const char* objectName, const QString& toolTip = {})
{
    SettingFormField field = number(key, group, label, objectName, 0, 0, {}, toolTip);
    field.kind = Kind::Switch;
    return field;
}

std::vector<SettingFormField> sandboxFields()
{
    const QString limits = QStringLiteral("Sandbox limits");
    const SettingFormField::Unit inMiB{QStringLiteral("MiB"), MiB};
    const int cpus = std::max(1, QThread::idealThreadCount());
    std::vector<SettingFormField> fields;
    SettingFormField isolation =
        make(Kind::Choice, "isolation", limits, QStringLiteral("I&solation:"), "isolation");
    const auto tier = [](Isolation value, const QString& label, const QString& note) {
        return SettingFormField::Choice{label, kIsolations.toString(value), note};
    };
    isolation.choices = {
        tier(Isolation::Standard, QStringLiteral("Standard (this computer's kernel)"),
             QStringLiteral("Sandboxed code talks to this computer's kernel, behind a seccomp "
                            "profile, without capabilities or privileges.")),
        tier(Isolation::Gvisor, QStringLiteral("gVisor (a kernel of its own)"),
             QStringLiteral("gVisor's user-space kernel stands between sandboxed code and this "
                            "computer's: a stronger wall for code nobody has read, at some cost "
                            "in start-up and speed. Needs gVisor (runsc) with Podman as root or "
                            "registered with Docker; `code-sandbox-mcp doctor` says what is "
                            "missing. Without it, runs fail: they never run with less.")),
    };
    fields.push_back(isolation);
    // An image's own tier, where its language's image needs another.
    for (const auto& [key, label, objectName] :
         {std::tuple{"python-isolation", QStringLiteral("Python's tier:"), "pythonIsolation"},
          std::tuple{"js-isolation", QStringLiteral("&JavaScript's tier:"), "jsIsolation"}}) {
        SettingFormField own = make(Kind::Choice, key, limits, label, objectName);
        own.choices = {
            {QStringLiteral("As Isolation says"), QString(),
             QStringLiteral("This language's sandboxes run under the tier chosen above.")},
            tier(Isolation::Standard, QStringLiteral("Standard"),
                 QStringLiteral("This language's image runs on this computer's kernel whatever "
                                "the tier above: for an image gVisor cannot run.")),
            tier(Isolation::Gvisor, QStringLiteral("gVisor"),
                 QStringLiteral("This language's image always runs under gVisor: for an image "
                                "whose code must never reach this computer's kernel.")),
        };
        fields.push_back(own);
    }
    fields.push_back(size("memory", limits, QStringLiteral("&Memory:"), "memory", kMinMemory,
                          kMaxMemory, {inMiB},
                          QStringLiteral("Memory a sandbox may use; it gets no swap beyond it.")));
    fields.back().step = 64;
    SettingFormField cpu = number(
        "cpus", limits, QStringLiteral("&CPUs:"), "cpus", 0.01, cpus, {},
        QStringLiteral("CPUs a sandbox may use, e.g. 0.5 (at most this machine's %1).").arg(cpus));
    cpu.kind = Kind::Decimal;
    cpu.decimals = 2;
    cpu.step = 0.25;
    fields.push_back(cpu);
    fields.push_back(number("pids-limit", limits, QStringLiteral("Pr&ocesses:"), "processes",
                            kMinPids, kMaxPids, {},
                            QStringLiteral("Processes and threads a sandbox may have at once.")));
    fields.push_back(size("tmpfs-size", limits, QStringLiteral("&Writable space:"), "writableSpace",
                          kMinTmpfs, kMaxTmpfs, {inMiB},
                          QStringLiteral("Size of each writable folder of a sandbox: /tmp and "
                                         "/sandbox.")));
    fields.push_back(size("output-cap", limits, QStringLiteral("O&utput kept per stream:"),
                          "outputCap", kMinOutputCap, kMaxOutputCap,
                          {{QStringLiteral("KiB"), KiB}, inMiB},
                          QStringLiteral("Most of each of stdout and stderr that is kept; the "
                                         "rest is dropped as it arrives.")));
    fields.push_back(number("max-running", limits, QStringLiteral("Sandboxes at o&nce:"),
                            "maxRunning", 0, kMaxRunning, {},
                            QStringLiteral("Sandboxes each server runs at once; further calls "
                                           "wait in a queue. Automatic: twice the CPUs, or fewer "
                                           "when their memory limits would not fit in this "
                                           "machine's memory.")));
    fields.back().minimumText = QStringLiteral("Automatic");
    fields.push_back(switchField(
        "allow-unlimited", limits,
        QStringLiteral("Run programs even where the engine does not enforce these &limits"),
        "allowUnlimited",
        QStringLiteral("Rootless Podman on a cgroup v1 system accepts the memory, process and CPU "
                       "limits and ignores them. Without this, such a sandbox refuses to run; "
                       "with it, programs run bounded only by the machine, and each run says "
                       "so.")));
    return fields;
}

std::vector<SettingFormField> networkFields()
{
    const QString network = QStringLiteral("Network");
    SettingFormField egress = make(Kind::Choice, "egress", network, {}, "egress");
    egress.radio = true;
    const auto mode = [](EgressMode value, const QString& label, const QString& note) {
        return SettingFormField::Choice{label, EgressModes::toString(value), note};
    };
    egress.choices = {
        mode(EgressMode::Open, QStringLiteral("&Public hosts, through the proxy"),
             QStringLiteral("Sandboxed code reaches any public host through this app's proxy, "
                            "and every connection shows in the run's Network tab. This "
                            "computer, other sandboxes, private networks and the cloud metadata "
                            "address are refused unless listed below.")),
        mode(EgressMode::Allowlist, QStringLiteral("Only the hosts &listed below"),
             QStringLiteral("Every other connection is refused, and the assistant is told why.")),
        mode(EgressMode::Ask, QStringLiteral("As&k me about each new host"),
             QStringLiteral("The first connection of a run to a public host not listed below "
                            "waits while this app asks you: allow it for that run, always (it "
                            "joins the always-allowed hosts below), or deny it. Unanswered within "
                            "the approval time below, it is denied. Servers that assistants "
                            "start themselves, with no app to ask, refuse such hosts.")),
        mode(EgressMode::None, QStringLiteral("&No network"),
             QStringLiteral("Sandboxed code has no network at all: the safest choice when the "
                            "code you run needs none.")),
        mode(EgressMode::Bridge, QStringLiteral("&Bridge, unfiltered"),
             QStringLiteral("The container engine's own network, with no proxy: sandboxed code "
                            "reaches everything this computer reaches, this computer's own "
                            "services and the cloud metadata address included, and nothing is "
                            "recorded.")),
    };
    SettingFormField allowed =
        make(Kind::HostList, "allow-host", network,
             QStringLiteral("Allowed &hosts, one a line (a name, *.domain or an address, with an "
                            "optional :port):"),
             "allowedHosts");
    allowed.name = QStringLiteral("an allowed host");
    allowed.placeholder = QStringLiteral("api.github.com\n*.pypi.org\n192.168.1.20:8080");
    SettingFormField always = allowed;
    always.key = QStringLiteral("always-allow");
    always.label = QStringLiteral("Hosts allowed &always when asked (ask mode), one a line. "
                                  "Unlike the hosts above, only at public addresses:");
    always.objectName = QStringLiteral("alwaysAllowed");
    always.name = QStringLiteral("an always-allowed host");
    always.placeholder = QStringLiteral("example.com:443");

    SettingFormField shares =
        make(Kind::Folders, "share", QStringLiteral("Shared folders"), {}, "sharedFolders");
    shares.name = QStringLiteral("a shared folder");
    shares.note =
        QStringLiteral("Programs in every sandbox find these folders at /data/NAME, read-only "
                       "unless marked writable; the assistant is told their names, so it can "
                       "read a large file without it passing through the conversation. It can "
                       "never choose a folder of this computer itself. The sandbox user (uid "
                       "65534) needs permission to read them, or to write to a writable one.");
    return {egress, allowed, always, shares};
}

std::vector<SettingFormField> callFields()
{
    const QString seconds = QStringLiteral(" s");
    const QString timeouts = QStringLiteral("Timeouts");
    const QString pool = QStringLiteral("Warm pool");
    const QString sessions = QStringLiteral("Sessions");
    std::vector<SettingFormField> fields{
        number("timeout", timeouts, QStringLiteral("&Default:"), "defaultTimeout", 1,
               kMaxTimeoutSeconds, seconds,
               QStringLiteral("How long a run may take when the call gives no timeout.")),
        number("max-timeout", timeouts, QStringLiteral("Ma&ximum:"), "maxTimeout", 1,
               kMaxTimeoutSeconds, seconds,
               QStringLiteral("The longest timeout a call may ask for.")),
        number("pool", pool, QStringLiteral("Containers &ready:"), "poolSize", 0, kMaxPool,
               QStringLiteral(" per language"),
               QStringLiteral("Containers kept started ahead of calls, so that a call skips the "
                              "container start. Each runs one call only.")),
        number("pool-idle", pool, QStringLiteral("Remove them after &idle:"), "poolIdle", 1,
               kMaxPoolIdleSeconds, seconds,
               QStringLiteral("Seconds without a call after which the waiting containers are "
                              "removed.")),
        number("interpreter-idle", sessions, QStringLiteral("End after i&dle:"), "interpreterIdle",
               kMinInterpreterIdleSeconds, kMaxInterpreterIdleSeconds, seconds,
               QStringLiteral("A session without a cell this long ends, and its variables are "
                              "lost; its client is told so on its next call.")),
        number("max-interpreters", sessions, QStringLiteral("At most, in &all:"), "maxInterpreters",
               0, kMaxInterpreters, {},
               QStringLiteral("Live sessions for all clients at once. Each keeps a container and "
                              "its memory.")),
        number("max-client-interpreters", sessions, QStringLiteral("At most, per c&lient:"),
               "maxClientInterpreters", 1, kMaxInterpreters, {},
               QStringLiteral("Live sessions each client may keep at once.")),
        switchField("redact", QStringLiteral("Privacy"),
                    QStringLiteral("R&eplace secret values in output with [secret:NAME]"),
                    "redact"),
    };
    fields.at(2).minimumText = QStringLiteral("Off");
    fields.at(5).minimumText = QStringLiteral("Off");
    return fields;
}

std::vector<SettingFormField> historyAndEngineFields()
{
    const QString history = QStringLiteral("History");
    // A server takes any count and age; these only keep the boxes a sensible width.
    constexpr int kMaxKeptRuns = 100'000'000;
    constexpr int kMaxKeptDays = 100 * 365;
    constexpr int kMaxKeptMiB = 1024 * 1024; // 1 TiB
    const QString mebibytes = QStringLiteral(" MiB");
    const QString noLimit = QStringLiteral("No limit");
    std::vector<SettingFormField> fields{
        number("history-max-runs", history, QStringLiteral("Keep &the newest:"), "keepRuns", 0,
               kMaxKeptRuns, QStringLiteral(" runs"), {}),
        number("history-max-days", history, QStringLiteral("Keep runs &for:"), "keepDays", 0,
               kMaxKeptDays, QStringLiteral(" days"), {}),
        number("history-max-mb", history, QStringLiteral("Keep the histor&y within:"),
               "keepMegabytes", 0, kMaxKeptMiB, mebibytes,
               QStringLiteral("The oldest runs are deleted while the history holds more.")),
        number("history-files-max-mb", history, QStringLiteral("Keep runs' f&iles within:"),
               "keepFilesMegabytes", 0, kMaxKeptMiB, mebibytes,
               QStringLiteral("The files runs were given and made (charts, results), kept beside "
                              "the history: the oldest runs' files are deleted while they take "
                              "more.")),
        size("history-max-field-size", history, QStringLiteral("&Keep of each code and output:"),
             "keepPerText", kMinHistoryField, kMaxHistoryField, {{QStringLiteral("KiB"), KiB}},
             QStringLiteral("Most of each run's code, stdout and stderr kept in the history; a "
                            "note says how much more there was. What the assistant gets is not "
                            "affected.")),
    };
    fields.at(0).step = 1000;
    fields.at(2).step = 64;
    fields.at(3).step = 256;
    fields.at(4).step = 64;
    for (int i = 0; i < 4; ++i)
        fields.at(i).minimumText = noLimit;
    fields.at(4).note = QStringLiteral("Servers delete older runs when they start, every 10 "
                                       "minutes, and as soon as the history outgrows its size (0: "
                                       "no limit).");

    const QString engineGroup = QStringLiteral("Engine");
    SettingFormField engine =
        make(Kind::Choice, "engine", engineGroup, QStringLiteral("Container en&gine:"), "engine");
    engine.choices = {
        {QStringLiteral("Auto (Podman if installed, else Docker)"), QStringLiteral("auto"), {}},
        {QStringLiteral("Podman"), QStringLiteral("podman"), {}},
        {QStringLiteral("Docker"), QStringLiteral("docker"), {}},
    };
    SettingFormField host =
        make(Kind::Text, "engine-host", engineGroup, QStringLiteral("Engine &host:"), "engineHost");
    host.placeholder = QStringLiteral("where its command line goes by default");
    host.widthChars = 40;
    host.note = QStringLiteral("A remote engine or a VM: ssh://me@build, tcp://build:2376 (TLS "
                               "from DOCKER_CERT_PATH), unix:///path/to/podman.sock, or the name "
                               "of a Docker context or Podman connection. Sandboxes there get "
                               "their launcher through the engine, not a shared folder.");
    fields.push_back(engine);
    fields.push_back(host);
    return fields;
}

} // namespace

const std::vector<SettingFormField>& ServerSettingsForm::fields()
{
    static const std::vector<SettingFormField> all = [] {
        std::vector<SettingFormField> list;
        for (auto&& part :
             {sandboxFields(), networkFields(), callFields(), historyAndEngineFields()})
            list.insert(list.end(), part.cbegin(), part.cend());
        return list;
    }();
    return all;
}

} // namespace csm
