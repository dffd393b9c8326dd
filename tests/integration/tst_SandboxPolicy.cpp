// The sandbox policy, proven from inside: every limit is attacked by a program that tries to
// break it, run through the real code-sandbox-mcp binary against a real container engine
// (CSM_TEST_ENGINE=podman|docker). Each test would fail if its limit were missing.
#include "CallResult.h"
#include "history/HistoryStore.h"
#include "HostProcesses.h"
#include "McpStdioClient.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QStorageInfo>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using callresult::code;
using callresult::describe;
using callresult::isError;
using callresult::pidLabel;
using callresult::printedJson;
using callresult::stdoutOf;
using callresult::structured;
using callresult::text;
using hostprocesses::allCommandLines;

namespace {
constexpr qint64 kMiB = 1024 * 1024;
constexpr int kErrnoEperm = 1;
constexpr int kErrnoEagain = 11;
constexpr int kErrnoEacces = 13;
constexpr int kErrnoEnospc = 28;
constexpr int kErrnoErofs = 30;

// Every flag of the sandbox policy and the environment variable that sets it too.
const QList<std::pair<QString, QString>>& policyFlags()
{
    static const QList<std::pair<QString, QString>> flags{
        {QStringLiteral("--memory"), QStringLiteral("CODE_SANDBOX_MEMORY")},
        {QStringLiteral("--cpus"), QStringLiteral("CODE_SANDBOX_CPUS")},
        {QStringLiteral("--pids-limit"), QStringLiteral("CODE_SANDBOX_PIDS_LIMIT")},
        {QStringLiteral("--tmpfs-size"), QStringLiteral("CODE_SANDBOX_TMPFS_SIZE")},
        {QStringLiteral("--network"), QStringLiteral("CODE_SANDBOX_NETWORK")},
        {QStringLiteral("--egress"), QStringLiteral("CODE_SANDBOX_EGRESS")},
        {QStringLiteral("--allow-host"), QStringLiteral("CODE_SANDBOX_ALLOW_HOST")},
        {QStringLiteral("--output-cap"), QStringLiteral("CODE_SANDBOX_OUTPUT_CAP")},
        {QStringLiteral("--timeout"), QStringLiteral("CODE_SANDBOX_TIMEOUT")},
        {QStringLiteral("--max-timeout"), QStringLiteral("CODE_SANDBOX_MAX_TIMEOUT")},
    };
    return flags;
}

QString stderrOf(const QJsonObject& result)
{
    return structured(result).value(QLatin1String("stderr")).toString();
}

// Reads a boolean that must be present: a missing key is neither true nor false.
QString flag(const QJsonObject& result, const QString& key)
{
    const QJsonValue value = structured(result).value(key);
    if (!value.isBool())
        return QStringLiteral("missing");
    return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
}

QJsonObject toolCall(const QString& tool, const QJsonObject& arguments)
{
    return {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}};
}

// A field of /proc/PID/status in bytes (VmRSS, VmHWM), or -1.
qint64 statusBytes(qint64 pid, QLatin1String field)
{
    QFile file(QStringLiteral("/proc/%1/status").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return -1;
    const QStringList lines = QString::fromLatin1(file.readAll()).split(u'\n');
    for (const QString& line : lines) {
        if (line.startsWith(field + QLatin1Char(':'))) {
            const QStringList parts = line.simplified().split(u' ');
            return parts.size() >= 2 ? parts.at(1).toLongLong() * 1024 : -1;
        }
    }
    return -1;
}

qint64 hostDiskAvailable()
{
    // Where podman (/var/lib/containers) and docker (/var/lib/docker) keep container layers.
    QStorageInfo storage(QStringLiteral("/var/lib"));
    storage.refresh();
    return storage.bytesAvailable();
}

QString readHostFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()).trimmed() : QString();
}

qint64 deadPid()
{
    QProcess process;
    process.start(QStringLiteral("true"), QStringList());
    process.waitForFinished(5'000);
    return process.processId() > 0 ? process.processId() : 999'999'999;
}

QStringList forceRemoveArguments(const QStringList& containers)
{
    QStringList arguments{QStringLiteral("rm"), QStringLiteral("-f")};
    if (TestEngine::name() == QLatin1String("podman"))
        arguments << QStringLiteral("-t") << QStringLiteral("0");
    return arguments + containers;
}

// A unique process name (at most 15 characters, the kernel's limit for comm).
QString uniqueMarker()
{
    return QStringLiteral("csm%1").arg(QRandomGenerator::global()->bounded(10'000'000, 99'999'999));
}

// A program announces that it is running by renaming itself: the host sees the name in /proc.
// (With containers started ahead of calls, a container with the server's label proves nothing.)
bool underGvisor()
{
    return TestEngine::isolation() == QLatin1String("gvisor");
}

// Python that makes its process findable by `marker` (waitForRunningContainer): its name as the
// host sees it (/proc/PID/comm), or under gVisor, whose processes the host does not see (and
// whose kernel refuses a new name), a file of that name in /tmp.
QString announce(const QString& marker)
{
    if (underGvisor())
        return QStringLiteral("open('/tmp/%1', 'w').close()\n").arg(marker);
    return QStringLiteral("open('/proc/self/comm', 'w').write('%1')\n").arg(marker);
}

// The same in JavaScript.
QString announceInJavaScript(const QString& marker)
{
    if (underGvisor())
        return QStringLiteral("require('fs').writeFileSync('/tmp/%1', '');\n").arg(marker);
    return QStringLiteral("require('fs').writeFileSync('/proc/self/comm', '%1');\n").arg(marker);
}

QList<qint64> hostProcessesNamed(const QString& name)
{
    QList<qint64> found;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString& entry : entries) {
        QFile comm(QStringLiteral("/proc/%1/comm").arg(entry));
        if (comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == name.toLatin1())
            found << entry.toLongLong();
    }
    return found;
}

// The full ID of the container that runs the process announced as `marker`, from the process's
// cgroup path (/docker/ID, libpod-ID...), or empty if none appears in time.
QString waitForRunningContainer(const QString& marker, int timeoutMs = 20'000)
{
    static const QRegularExpression id(QStringLiteral("[0-9a-f]{64}"));
    QDeadlineTimer deadline(timeoutMs);
    while (underGvisor() && !deadline.hasExpired()) {
        // The sandbox whose /tmp holds the marker (only this test's engine runs sandboxes now).
        const QStringList running =
            QString::fromLatin1(
                TestEngine::run({QStringLiteral("ps"), QStringLiteral("-q"),
                                 QStringLiteral("--no-trunc"), QStringLiteral("--filter"),
                                 QStringLiteral("label=code-sandbox.app"),
                                 QStringLiteral("--filter"), QStringLiteral("status=running")}))
                .split(u'\n', Qt::SkipEmptyParts);
        for (const QString& container : running) {
            bool found = false;
            TestEngine::run({QStringLiteral("exec"), container, QStringLiteral("test"),
                             QStringLiteral("-e"), QStringLiteral("/tmp/") + marker},
                            &found);
            if (found)
                return container;
        }
        QTest::qWait(100);
    }
    while (!deadline.hasExpired()) {
        for (const qint64 pid : hostProcessesNamed(marker)) {
            QFile cgroup(QStringLiteral("/proc/%1/cgroup").arg(pid));
            if (!cgroup.open(QIODevice::ReadOnly))
                continue;
            const auto match = id.match(QString::fromLatin1(cgroup.readAll()));
            if (match.hasMatch())
                return match.captured();
        }
        QTest::qWait(50);
    }
    return {};
}

bool containerExists(const QString& id)
{
    const QByteArray all = TestEngine::run({QStringLiteral("ps"), QStringLiteral("-a"),
                                            QStringLiteral("-q"), QStringLiteral("--no-trunc")});
    return QString::fromLatin1(all).split(u'\n', Qt::SkipEmptyParts).contains(id);
}

bool waitUntilContainerGone(const QString& id, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    while (containerExists(id)) {
        if (deadline.hasExpired())
            return false;
        QTest::qWait(200);
    }
    return true;
}

QJsonObject labelsOf(const QString& container)
{
    const QByteArray json = TestEngine::run({QStringLiteral("inspect"), QStringLiteral("--format"),
                                             QStringLiteral("{{json .Config.Labels}}"), container});
    return QJsonDocument::fromJson(json).object();
}

// Reads every limit the sandbox's cgroup imposes (v1 paths here, v2 tolerated), the sizes of its
// writable filesystems and its network interfaces.
const char* const kLimitsProbe = R"(import json, os
def read(*paths):
    for path in paths:
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            pass
    return None
def size(path):
    s = os.statvfs(path)
    return s.f_blocks * s.f_frsize
cpu_max = read('/sys/fs/cgroup/cpu.max')
if cpu_max:
    quota, period = cpu_max.split()
else:
    quota = read('/sys/fs/cgroup/cpu/cpu.cfs_quota_us', '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us')
    period = read('/sys/fs/cgroup/cpu/cpu.cfs_period_us', '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us')
print(json.dumps({
    'memory': read('/sys/fs/cgroup/memory/memory.limit_in_bytes', '/sys/fs/cgroup/memory.max'),
    'memsw': read('/sys/fs/cgroup/memory/memory.memsw.limit_in_bytes'),
    'swapmax': read('/sys/fs/cgroup/memory.swap.max'),
    'pids': read('/sys/fs/cgroup/pids/pids.max', '/sys/fs/cgroup/pids.max'),
    'cpus': int(quota) / int(period) if quota and period and quota != 'max' and int(quota) > 0 else None,
    'tmp': size('/tmp'),
    'sandbox': size('/sandbox'),
    'net': sorted(os.listdir('/sys/class/net')),
}))
)";

const char* const kBusyLoop = "print('started', flush=True)\nwhile True: pass\n";
} // namespace

class TestSandboxPolicy final : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<McpStdioClient> startServer(const QStringList& arguments = {},
                                                const QMap<QString, QString>& environment = {})
    {
        auto client = std::make_unique<McpStdioClient>();
        if (!client->start(arguments, serverEnvironment(environment)))
            return nullptr;
        const QJsonObject init = client->initialize();
        if (init.value(QLatin1String("protocolVersion")).toString() != QLatin1String("2025-11-25"))
            return nullptr;
        m_serverPids << client->pid();
        return client;
    }

    static QProcessEnvironment serverEnvironment(const QMap<QString, QString>& environment)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        // The defaults are under test: nothing of the caller's own configuration may leak in.
        for (const auto& [flagName, variable] : policyFlags())
            env.remove(variable);
        // Save the remote suites' none (tst_Egress covers the proxy through a remote engine).
        if (TestEngine::isRemote())
            env.insert(QStringLiteral("CODE_SANDBOX_EGRESS"), QStringLiteral("none"));
        env.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
        for (auto it = environment.cbegin(); it != environment.cend(); ++it)
            env.insert(it.key(), it.value());
        return env;
    }

    // Runs the server binary to its end with stdin closed: for options that must stop it.
    struct Outcome
    {
        bool exited = false;
        int exitCode = -1;
        QString standardOutput;
        QString standardError;
    };
    static Outcome runServerToExit(const QStringList& arguments,
                                   const QMap<QString, QString>& environment = {})
    {
        QProcess process;
        process.setProgram(QStringLiteral(CSM_SERVER_BINARY));
        process.setArguments(arguments);
        process.setProcessEnvironment(serverEnvironment(environment));
        process.start();
        process.waitForStarted(10'000);
        // A server that accepted the options serves stdio: end of stdin makes it exit 0.
        process.closeWriteChannel();
        Outcome outcome;
        outcome.exited = process.waitForFinished(15'000);
        if (!outcome.exited) {
            process.kill();
            process.waitForFinished(5'000);
        }
        outcome.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        outcome.standardOutput = QString::fromUtf8(process.readAllStandardOutput());
        outcome.standardError = QString::fromUtf8(process.readAllStandardError());
        return outcome;
    }

    static QJsonObject python(McpStdioClient& server, const QString& program,
                              double timeoutSeconds = 0, int waitMs = 60'000)
    {
        return server.callTool(QStringLiteral("run_python_code"), code(program, timeoutSeconds),
                               waitMs);
    }

    // python(), asked once more when the call's timeout ended it before it printed anything: on
    // a loaded machine a cold interpreter's start-up (which its timeout counts) has taken a
    // capped call's whole 5 s. For programs that print and are not about timeouts.
    static QJsonObject pythonStarted(McpStdioClient& server, const QString& program,
                                     double timeoutSeconds)
    {
        const QJsonObject first = python(server, program, timeoutSeconds);
        const bool neverStarted =
            flag(first, QStringLiteral("timed_out")) == QStringLiteral("true") &&
            stdoutOf(first).isEmpty() &&
            structured(first).value(QLatin1String("stderr")).toString().isEmpty();
        return neverStarted ? python(server, program, timeoutSeconds) : first;
    }

    static int startPython(McpStdioClient& server, const QString& program,
                           double timeoutSeconds = 0)
    {
        return server.sendRequest(
            QStringLiteral("tools/call"),
            toolCall(QStringLiteral("run_python_code"), code(program, timeoutSeconds)));
    }

    // A ping is answered and a normal run works: what every fault must leave intact.
    static bool stillServes(McpStdioClient& server)
    {
        const auto pong = server.waitForResponse(server.sendRequest(QStringLiteral("ping")));
        if (!pong || !pong->contains(QLatin1String("result"))) {
            qWarning("the server no longer answers ping");
            return false;
        }
        const QJsonObject result = python(server, QStringLiteral("print('alive')"), 20);
        if (stdoutOf(result) != QLatin1String("alive\n") || isError(result)) {
            qWarning("a normal run no longer works: %s", describe(result).constData());
            return false;
        }
        return true;
    }

    // The fork bomb: forks until the kernel refuses (or `guard` children exist), each child
    // holding its process slot for `holdSeconds`.
    // The bomb names itself `name` (its children inherit the name), so that the host can count
    // its processes apart from everyone else's.
    static QString forkBomb(int guard, double holdSeconds,
                            const QString& name = QStringLiteral("bomb"))
    {
        return QStringLiteral(R"(import json, os, time
try:
    with open('/proc/self/comm', 'w') as comm:
        comm.write('%3')
except OSError:
    pass  # gVisor's kernel refuses; its processes are not the host's to count anyway
children = []
failure = None
while len(children) < %1:
    try:
        pid = os.fork()
    except OSError as e:
        failure = e
        break
    if pid == 0:
        time.sleep(%2)
        os._exit(0)
    children.append(pid)
print(json.dumps({'created': len(children),
                  'error': type(failure).__name__ if failure else None,
                  'errno': failure.errno if failure else None}), flush=True)
for pid in children:
    os.waitpid(pid, 0)
)")
            .arg(guard)
            .arg(holdSeconds)
            .arg(name);
    }

    // Writes 1 MiB chunks to each path until an error or `guard` bytes, then holds the files
    // for a moment (so the host's disk can be watched while they exist).
    static QString diskFiller(const QStringList& paths, qint64 guard)
    {
        QStringList quoted;
        for (const QString& path : paths)
            quoted << QLatin1Char('\'') + path + QLatin1Char('\'');
        return QStringLiteral(R"(import json, os, time
def fill(path, guard):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    written = 0
    chunk = b'x' * 1048576
    try:
        while written < guard:
            written += os.write(fd, chunk)
    except OSError as e:
        return {'written': written, 'errno': e.errno}
    finally:
        os.close(fd)
    return {'written': written, 'errno': 0}
result = {'cwd': os.getcwd()}
for path in [%1]:
    result[path] = fill(path, %2)
print(json.dumps(result), flush=True)
time.sleep(0.5)
)")
            .arg(quoted.join(QStringLiteral(", ")))
            .arg(guard);
    }

    static bool stopDockerDaemon()
    {
        const qint64 pid = readHostFile(QStringLiteral("/var/run/docker.pid")).toLongLong();
        if (pid <= 1 || ::kill(static_cast<pid_t>(pid), SIGTERM) != 0) {
            qWarning("no dockerd to stop (pid %lld)", pid);
            return false;
        }
        QDeadlineTimer deadline(60'000);
        while (QFile::exists(QStringLiteral("/proc/%1").arg(pid)) && !deadline.hasExpired())
            QTest::qWait(200);
        return !QFile::exists(QStringLiteral("/proc/%1").arg(pid));
    }

    static bool dockerAnswers()
    {
        QProcess info;
        info.start(QStringLiteral("docker"), {QStringLiteral("info")});
        return info.waitForFinished(30'000) && info.exitStatus() == QProcess::NormalExit &&
               info.exitCode() == 0;
    }

    // Starts dockerd again the way the machine was set up, and waits until it answers.
    static bool restartDockerDaemon()
    {
        QProcess setup;
        setup.setProcessChannelMode(QProcess::ForwardedChannels);
        setup.start(QStringLiteral(CSM_SOURCE_DIR "/scripts/setup-engines"),
                    {QStringLiteral("--docker")});
        if (!setup.waitForFinished(180'000))
            qWarning("setup-engines --docker did not finish");
        QDeadlineTimer deadline(90'000);
        while (!deadline.hasExpired()) {
            if (dockerAnswers())
                return true;
            QTest::qWait(1'000);
        }
        qWarning("dockerd does not answer `docker info`");
        return false;
    }

    std::unique_ptr<McpStdioClient> m_server; // default flags, shared where the flags allow
    QList<qint64> m_serverPids;               // of every server started, to check for leftovers

private Q_SLOTS:
    void initTestCase()
    {
        for (const QLatin1String image : {QLatin1String("code-sandbox-python:latest"),
                                          QLatin1String("code-sandbox-js:latest")}) {
            QVERIFY2(TestEngine::hasLocalImage(image),
                     "the sandbox images must be built (containers/build-images)");
        }
        m_server = startServer();
        QVERIFY(m_server);
    }

    void cleanupTestCase()
    {
        QVERIFY(m_server);
        m_server->closeStdin();
        QVERIFY(m_server->waitForExit(15'000));
        QCOMPARE(m_server->process().exitCode(), 0);
        m_server.reset();
        // Every server has exited (or was killed and reaped): none left a container behind,
        // whether it ran a program or was kept ready for one.
        for (const qint64 pid : std::as_const(m_serverPids))
            QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(pid), 15'000),
                     QStringList());
    }

    // --- options ------------------------------------------------------------------------------

    void helpDocumentsEveryLimit()
    {
        const Outcome help = runServerToExit({QStringLiteral("--help")});
        QVERIFY(help.exited);
        QCOMPARE(help.exitCode, 0);
        for (const auto& [flagName, variable] : policyFlags()) {
            QVERIFY2(help.standardOutput.contains(flagName), qPrintable(flagName));
            QVERIFY2(help.standardOutput.contains(variable), qPrintable(variable));
        }
    }

    void invalidValuesAreRefused_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QStringList>("names"); // the message must name one of them

        const QString memory = QStringLiteral("--memory");
        const QString cpus = QStringLiteral("--cpus");
        const QString pids = QStringLiteral("--pids-limit");
        const QString tmpfs = QStringLiteral("--tmpfs-size");
        const QString network = QStringLiteral("--network");
        const QString cap = QStringLiteral("--output-cap");
        QTest::newRow("--memory lots") << QStringList{memory, QStringLiteral("lots")} << QString()
                                       << QString() << QStringList{memory};
        // For the engines 0 means "no limit": it must not slip through as one.
        QTest::newRow("--memory 0") << QStringList{memory, QStringLiteral("0")} << QString()
                                    << QString() << QStringList{memory};
        QTest::newRow("--cpus 0") << QStringList{cpus, QStringLiteral("0")} << QString()
                                  << QString() << QStringList{cpus};
        QTest::newRow("--cpus=-1") << QStringList{QStringLiteral("--cpus=-1")} << QString()
                                   << QString() << QStringList{cpus};
        QTest::newRow("--cpus many") << QStringList{cpus, QStringLiteral("many")} << QString()
                                     << QString() << QStringList{cpus};
        QTest::newRow("--pids-limit 0") << QStringList{pids, QStringLiteral("0")} << QString()
                                        << QString() << QStringList{pids};
        QTest::newRow("--pids-limit=-1") << QStringList{QStringLiteral("--pids-limit=-1")}
                                         << QString() << QString() << QStringList{pids};
        QTest::newRow("--tmpfs-size 0") << QStringList{tmpfs, QStringLiteral("0")} << QString()
                                        << QString() << QStringList{tmpfs};
        QTest::newRow("--tmpfs-size big") << QStringList{tmpfs, QStringLiteral("big")} << QString()
                                          << QString() << QStringList{tmpfs};
        // Sharing the host's (or another container's) network would defeat the isolation.
        QTest::newRow("--network host") << QStringList{network, QStringLiteral("host")} << QString()
                                        << QString() << QStringList{network};
        QTest::newRow("--network container:x")
            << QStringList{network, QStringLiteral("container:x")} << QString() << QString()
            << QStringList{network};
        QTest::newRow("--egress host")
            << QStringList{QStringLiteral("--egress"), QStringLiteral("host")} << QString()
            << QString() << QStringList{QStringLiteral("--egress")};
        QTest::newRow("--allow-host with a bad port")
            << QStringList{QStringLiteral("--allow-host"), QStringLiteral("api.github.com:http")}
            << QString() << QString() << QStringList{QStringLiteral("--allow-host")};
        QTest::newRow("CODE_SANDBOX_EGRESS=everything")
            << QStringList() << QStringLiteral("CODE_SANDBOX_EGRESS")
            << QStringLiteral("everything")
            << QStringList{QStringLiteral("--egress"), QStringLiteral("CODE_SANDBOX_EGRESS")};
        QTest::newRow("--output-cap lots") << QStringList{cap, QStringLiteral("lots")} << QString()
                                           << QString() << QStringList{cap};
        QTest::newRow("--timeout 0")
            << QStringList{QStringLiteral("--timeout"), QStringLiteral("0")} << QString()
            << QString() << QStringList{QStringLiteral("--timeout")};
        QTest::newRow("CODE_SANDBOX_MEMORY=lots")
            << QStringList() << QStringLiteral("CODE_SANDBOX_MEMORY") << QStringLiteral("lots")
            << QStringList{memory, QStringLiteral("CODE_SANDBOX_MEMORY")};
        QTest::newRow("CODE_SANDBOX_NETWORK=host")
            << QStringList() << QStringLiteral("CODE_SANDBOX_NETWORK") << QStringLiteral("host")
            << QStringList{network, QStringLiteral("CODE_SANDBOX_NETWORK")};
        QTest::newRow("CODE_SANDBOX_PIDS_LIMIT=0")
            << QStringList() << QStringLiteral("CODE_SANDBOX_PIDS_LIMIT") << QStringLiteral("0")
            << QStringList{pids, QStringLiteral("CODE_SANDBOX_PIDS_LIMIT")};
    }

    void invalidValuesAreRefused()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QStringList, names);
        QMap<QString, QString> environment;
        if (!variable.isEmpty())
            environment.insert(variable, value);
        const Outcome outcome = runServerToExit(arguments, environment);
        QVERIFY2(outcome.exited, "the server kept running");
        QVERIFY2(outcome.exitCode != 0, "the server accepted the value");
        bool named = false;
        for (const QString& name : names)
            named = named || outcome.standardError.contains(name);
        QVERIFY2(named, qPrintable(outcome.standardError));
        QCOMPARE(outcome.standardOutput, QString()); // stdout belongs to the protocol
    }

    void flagsAndVariablesReachTheSandbox_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("environment"); // NAME=VALUE
        QTest::addColumn<qint64>("memory");
        QTest::addColumn<double>("cpus");
        QTest::addColumn<int>("pids");
        QTest::addColumn<qint64>("tmpfs");
        // Only the loopback: the default (the egress proxy) and --egress none alike.
        QTest::addColumn<bool>("onlyLoopback");
        QTest::addColumn<int>("outputCap");
        QTest::addColumn<int>("timeoutS");    // 0: the default (30 s), not waited for
        QTest::addColumn<int>("maxTimeoutS"); // 0: the default (600 s), not waited for

        const QStringList limitedFlags{QStringLiteral("--memory"),      QStringLiteral("256m"),
                                       QStringLiteral("--cpus"),        QStringLiteral("0.5"),
                                       QStringLiteral("--pids-limit"),  QStringLiteral("64"),
                                       QStringLiteral("--tmpfs-size"),  QStringLiteral("16m"),
                                       QStringLiteral("--egress"),      QStringLiteral("none"),
                                       QStringLiteral("--output-cap"),  QStringLiteral("1k"),
                                       QStringLiteral("--timeout"),     QStringLiteral("1"),
                                       QStringLiteral("--max-timeout"), QStringLiteral("5")};
        QTest::newRow("defaults") << QStringList() << QStringList() << 512 * kMiB << 1.0 << 256
                                  << 64 * kMiB << true << 1024 * 1024 << 0 << 0;
        // No containers started ahead of calls: the limits hold on the cold path too.
        QTest::newRow("defaults, cold start")
            << QStringList() << QStringList{QStringLiteral("CODE_SANDBOX_POOL=0")} << 512 * kMiB
            << 1.0 << 256 << 64 * kMiB << true << 1024 * 1024 << 0 << 0;
        QTest::newRow("flags") << limitedFlags << QStringList() << 256 * kMiB << 0.5 << 64
                               << 16 * kMiB << true << 1024 << 1 << 5;
        QTest::newRow("environment")
            << QStringList() << QStringList{QStringLiteral("CODE_SANDBOX_MEMORY=256m"),
                                            QStringLiteral("CODE_SANDBOX_CPUS=0.5"),
                                            QStringLiteral("CODE_SANDBOX_PIDS_LIMIT=64"),
                                            QStringLiteral("CODE_SANDBOX_TMPFS_SIZE=16m"),
                                            QStringLiteral("CODE_SANDBOX_EGRESS=none"),
                                            QStringLiteral("CODE_SANDBOX_OUTPUT_CAP=1k"),
                                            QStringLiteral("CODE_SANDBOX_TIMEOUT=1"),
                                            QStringLiteral("CODE_SANDBOX_MAX_TIMEOUT=5")}
            << 256 * kMiB << 0.5 << 64 << 16 * kMiB << true << 1024 << 1 << 5;
        QTest::newRow("a flag beats its variable")
            << limitedFlags << QStringList{QStringLiteral("CODE_SANDBOX_MEMORY=1g"),
                                           QStringLiteral("CODE_SANDBOX_CPUS=0.75"),
                                           QStringLiteral("CODE_SANDBOX_PIDS_LIMIT=128"),
                                           QStringLiteral("CODE_SANDBOX_TMPFS_SIZE=32m"),
                                           QStringLiteral("CODE_SANDBOX_EGRESS=bridge"),
                                           QStringLiteral("CODE_SANDBOX_OUTPUT_CAP=4k"),
                                           QStringLiteral("CODE_SANDBOX_TIMEOUT=5"),
                                           QStringLiteral("CODE_SANDBOX_MAX_TIMEOUT=10")}
            << 256 * kMiB << 0.5 << 64 << 16 * kMiB << true << 1024 << 1 << 5;
        // With the unfiltered bridge: an interface besides the loopback.
        QTest::newRow("sizes in bytes and g, bridge")
            << QStringList{QStringLiteral("--egress"),     QStringLiteral("bridge"),
                           QStringLiteral("--memory"),     QStringLiteral("1g"),
                           QStringLiteral("--tmpfs-size"), QStringLiteral("16777216"),
                           QStringLiteral("--output-cap"), QStringLiteral("2048"),
                           QStringLiteral("--cpus"),       QStringLiteral("0.75"),
                           QStringLiteral("--pids-limit"), QStringLiteral("100")}
            << QStringList() << 1024 * kMiB << 0.75 << 100 << 16 * kMiB << false << 2048 << 0 << 0;
    }

    void flagsAndVariablesReachTheSandbox()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, environment);
        QFETCH(qint64, memory);
        QFETCH(double, cpus);
        QFETCH(int, pids);
        QFETCH(qint64, tmpfs);
        QFETCH(bool, onlyLoopback);
        QFETCH(int, outputCap);
        QFETCH(int, timeoutS);
        QFETCH(int, maxTimeoutS);

        QMap<QString, QString> variables;
        for (const QString& assignment : environment)
            variables.insert(assignment.section(u'=', 0, 0), assignment.section(u'=', 1));
        auto server = startServer(arguments, variables);
        QVERIFY2(server, "the server did not start with these options");

        // Asks for 20 s; the rows that cap calls get their --max-timeout (5 s: room for Python's
        // start on a loaded machine; 2 s was not, and at half a processor 5 s has not always
        // been either: such a call is asked again, see pythonStarted).
        const QJsonObject probe = pythonStarted(*server, QString::fromLatin1(kLimitsProbe), 20);
        const QJsonObject limits = printedJson(probe);
        QVERIFY2(!limits.isEmpty(), describe(probe).constData());
        const QByteArray seen = QJsonDocument(limits).toJson(QJsonDocument::Compact);
        QCOMPARE(limits.value(QLatin1String("memory")).toString().toLongLong(), memory);
        // No swap: memory+swap is the memory limit (v1), or no swap at all (v2).
        if (limits.value(QLatin1String("memsw")).isString())
            QCOMPARE(limits.value(QLatin1String("memsw")).toString().toLongLong(), memory);
        if (limits.value(QLatin1String("swapmax")).isString())
            QCOMPARE(limits.value(QLatin1String("swapmax")).toString(), QStringLiteral("0"));
        QVERIFY2(qAbs(limits.value(QLatin1String("cpus")).toDouble() - cpus) < 0.01,
                 seen.constData());
        QCOMPARE(limits.value(QLatin1String("pids")).toString().toInt(), pids);
        QCOMPARE(limits.value(QLatin1String("tmp")).toInteger(), tmpfs);
        QCOMPARE(limits.value(QLatin1String("sandbox")).toInteger(), tmpfs);
        QStringList interfaces;
        for (const QJsonValue& name : limits.value(QLatin1String("net")).toArray())
            interfaces << name.toString();
        if (onlyLoopback)
            QCOMPARE(interfaces, QStringList{QStringLiteral("lo")});
        else
            QVERIFY2(interfaces.size() > 1 && interfaces.contains(QStringLiteral("lo")),
                     seen.constData());

        const QJsonObject loud = pythonStarted(
            *server, QStringLiteral("print('x' * %1, end='')").arg(outputCap * 2 + 10), 20);
        // The whole result when it is not as expected: seen once, under the full suite's load,
        // with no output at all (stop 30's second CI rehearsal).
        QVERIFY2(stdoutOf(loud).size() == outputCap, describe(loud).constData());
        QCOMPARE(flag(loud, QStringLiteral("truncated")), QStringLiteral("true"));

        if (timeoutS > 0) {
            // No timeout_seconds: the server's default applies.
            const QJsonObject looping = python(*server, QString::fromLatin1(kBusyLoop));
            QCOMPARE(flag(looping, QStringLiteral("timed_out")), QStringLiteral("true"));
            const double ms = structured(looping).value(QLatin1String("duration_ms")).toDouble();
            QVERIFY2(ms >= timeoutS * 1000 - 300 && ms < timeoutS * 1000 + 2'500,
                     describe(looping).constData());
        }
        if (maxTimeoutS > 0) {
            // Asking for more than the maximum gets the maximum.
            const QJsonObject looping = python(*server, QString::fromLatin1(kBusyLoop), 100);
            QCOMPARE(flag(looping, QStringLiteral("timed_out")), QStringLiteral("true"));
            const double ms = structured(looping).value(QLatin1String("duration_ms")).toDouble();
            QVERIFY2(ms >= maxTimeoutS * 1000 - 300 && ms < maxTimeoutS * 1000 + 2'500,
                     describe(looping).constData());
        }
    }

    // --- time ---------------------------------------------------------------------------------

    void busyLoopIsKilledAtItsTimeout_data()
    {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("program"); // %1: the marker it announces itself by
        QTest::newRow("python") << QStringLiteral("run_python_code")
                                << QStringLiteral("print('started', flush=True)\n") +
                                       announce(QStringLiteral("%1")) +
                                       QStringLiteral("while True: pass\n");
        QTest::newRow("javascript")
            << QStringLiteral("run_js_code")
            << QStringLiteral("console.log('started');\n") +
                   announceInJavaScript(QStringLiteral("%1")) + QStringLiteral("for (;;) {}\n");
    }

    void busyLoopIsKilledAtItsTimeout()
    {
        QFETCH(QString, tool);
        QFETCH(QString, program);
        // 4 s: on a loaded machine an interpreter's own start-up has taken 2 s, and the program
        // must get to announce itself before its timeout. 15 s under gVisor, where finding the
        // announcement takes an exec into each running sandbox, each a second or more under load.
        int timeoutSeconds = underGvisor() ? 15 : 4;
        QString marker;
        QString container;
        int id = 0;
        QElapsedTimer clock;
        // A cold interpreter's start-up counts within its timeout: under the full suite's load it
        // has once taken all 4 s (stop 48's CI). A program killed before it announced itself is
        // tried once more with three times the time.
        for (int attempt = 0; attempt < 2 && container.isEmpty(); ++attempt) {
            if (attempt > 0)
                timeoutSeconds *= 3;
            marker = uniqueMarker();
            clock.start();
            id = m_server->sendRequest(QStringLiteral("tools/call"),
                                       toolCall(tool, code(program.arg(marker), timeoutSeconds)));
            container = waitForRunningContainer(marker);
            if (!container.isEmpty())
                break;
            const auto unseen = m_server->waitForResponse(id, 60'000);
            QVERIFY2(unseen, "the program was never seen running, and never answered");
            const QJsonObject result = unseen->value(QLatin1String("result")).toObject();
            // Or it printed and was killed just before it announced itself (or as it did,
            // unseen between two looks): its timeout still stopped it.
            QVERIFY2(
                flag(result, QStringLiteral("timed_out")) == QStringLiteral("true") &&
                    (stdoutOf(result).isEmpty() || stdoutOf(result) == QStringLiteral("started\n")),
                describe(result).constData());
        }
        QVERIFY2(!container.isEmpty(), "the program never ran, twice");
        // Beyond the timeout: a container to start (under gVisor, seconds when the machine is
        // busy) and to kill.
        const int margin = underGvisor() ? 25'000 : 10'000;
        const auto response = m_server->waitForResponse(id, timeoutSeconds * 1000 + margin + 5'000);
        QVERIFY2(clock.elapsed() < timeoutSeconds * 1000 + margin,
                 "the timeout did not stop the program");
        QVERIFY(response);
        const QJsonObject result = response->value(QLatin1String("result")).toObject();
        QCOMPARE(flag(result, QStringLiteral("timed_out")), QStringLiteral("true"));
        QVERIFY(isError(result));
        // The clock starts when the code starts, not when the engine is asked for a container.
        const qint64 ms = structured(result).value(QLatin1String("duration_ms")).toInteger();
        QVERIFY2(ms >= timeoutSeconds * 1000 - 500 && ms <= timeoutSeconds * 1000 + 4'000,
                 describe(result).constData());
        QCOMPARE(stdoutOf(result), QStringLiteral("started\n"));
        QVERIFY2(waitUntilContainerGone(container, 10'000), qPrintable(container));
        QVERIFY(hostProcessesNamed(marker).isEmpty());
    }

    // --- processes ----------------------------------------------------------------------------

    void forkBombStopsAtThePidsLimit()
    {
        // A name of at most 15 characters (the kernel's limit), this test's own.
        const QString name = QStringLiteral("bomb%1").arg(QCoreApplication::applicationPid());
        QVERIFY(hostProcessesNamed(name).isEmpty());
        // Without a limit this would create 1000 processes on the host.
        // 120 s: on a loaded machine each fork has taken far longer than the 4 ms of a quiet one.
        const int id = startPython(*m_server, forkBomb(1'000, 2, name), 120);
        int peak = 0;
        std::optional<QJsonObject> response;
        QDeadlineTimer deadline(150'000);
        while (!response && !deadline.hasExpired()) {
            peak = std::max(peak, int(hostProcessesNamed(name).size()));
            response = m_server->waitForResponse(id, 100);
        }
        QVERIFY2(response, "the server did not answer during a fork bomb");
        const QJsonObject result = response->value(QLatin1String("result")).toObject();
        const QJsonObject bomb = printedJson(result);
        QVERIFY2(!bomb.isEmpty(), describe(result).constData());
        const int created = bomb.value(QLatin1String("created")).toInt();
        QCOMPARE(bomb.value(QLatin1String("error")).toString(), QStringLiteral("BlockingIOError"));
        QCOMPARE(bomb.value(QLatin1String("errno")).toInt(), kErrnoEagain);
        QVERIFY2(created <= 256 && created >= 256 - 16, describe(result).constData());
        QVERIFY2(structured(result).value(QLatin1String("exit_code")).toInt(-1) == 0,
                 describe(result).constData());
        // Seen from the host: the bomb and its children, never more than the limit. Each child
        // lives 2 s, so the count (every 100 ms) sees most of them at once.
        const QString seen = QStringLiteral("the bomb's processes seen on the host: at most %1, "
                                            "it created %2")
                                 .arg(peak)
                                 .arg(created);
        qInfo().noquote() << seen;
        QVERIFY2(peak <= 256, qPrintable(seen));
        QVERIFY2(peak >= created / 2, qPrintable(seen));
        QVERIFY(stillServes(*m_server));
    }

    // The kernel a program sees: this machine's, or under gVisor gVisor's own, whose /proc
    // shows nothing of this machine's.
    void isolationIsTheOneAsked()
    {
        const QJsonObject result =
            python(*m_server,
                   QStringLiteral("import platform\nprint(platform.release())\n"
                                  "print(open('/proc/version').read().strip())\n"),
                   60);
        const QStringList lines = stdoutOf(result).split(u'\n', Qt::SkipEmptyParts);
        QVERIFY2(lines.size() == 2, describe(result).constData());
        QFile hostVersion(QStringLiteral("/proc/version"));
        QVERIFY(hostVersion.open(QIODevice::ReadOnly));
        const QString host = QString::fromLatin1(hostVersion.readAll()).trimmed();
        if (TestEngine::isolation() == QLatin1String("gvisor")) {
            QCOMPARE(lines.at(0), QStringLiteral("4.4.0"));
            QVERIFY2(lines.at(1) != host, describe(result).constData());
        } else {
            QCOMPARE(lines.at(0), QSysInfo::kernelVersion());
            QCOMPARE(lines.at(1), host);
        }
    }

    // An image's own tier: Python's sandboxes under one, JavaScript's under the other, from one
    // server, each image's pooled containers too, and the history records each run's.
    void eachImageRunsUnderItsOwnTier()
    {
        const bool gvisorFirst = underGvisor();
        const QString other = gvisorFirst ? QStringLiteral("standard") : QStringLiteral("gvisor");
        QTemporaryDir data;
        auto server = startServer(
            {QStringLiteral("--js-isolation"), other, QStringLiteral("--data-dir"), data.path(),
             QStringLiteral("--pool"), QStringLiteral("1"), QStringLiteral("--verbose")});
        QVERIFY(server);
        const QString gvisorKernel = QStringLiteral("4.4.0");
        const QString pythonKernel = gvisorFirst ? gvisorKernel : QSysInfo::kernelVersion();
        const QString jsKernel = gvisorFirst ? QSysInfo::kernelVersion() : gvisorKernel;
        // Python's pool starts with the server; JavaScript's once its first call was asked for.
        QVERIFY(server->waitForPooledReady(1));
        for (int call = 0; call < 2; ++call) {
            const QJsonObject py =
                python(*server, QStringLiteral("import platform\nprint(platform.release())"), 60);
            QCOMPARE(stdoutOf(py).trimmed(), pythonKernel);
            const QJsonObject js = server->callTool(
                QStringLiteral("run_js_code"),
                code(QStringLiteral("console.log(require('os').release())"), 60), 60'000);
            QCOMPARE(stdoutOf(js).trimmed(), jsKernel);
        }
        server.reset();
        auto opened = csm::HistoryStore::open(data.filePath(QStringLiteral("history.sqlite")));
        QVERIFY(opened);
        const std::unique_ptr<csm::HistoryStore> history = *std::move(opened);
        csm::HistoryQuery query;
        query.limit = 0;
        const QList<csm::RunRecord> runs = *history->queries().list(query);
        QCOMPARE(runs.size(), 4);
        for (const csm::RunRecord& run : runs) {
            const QString tier = run.limits.value(QLatin1String("isolation")).toString();
            const bool gvisorRun = (run.language == QLatin1String("python")) == gvisorFirst;
            QCOMPARE(tier, gvisorRun ? QStringLiteral("gvisor") : QStringLiteral("standard"));
        }
    }

    void pidsLimitFlagIsEnforced()
    {
        auto server = startServer({QStringLiteral("--pids-limit"), QStringLiteral("32")});
        QVERIFY(server);
        const QJsonObject result = python(*server, forkBomb(1'000, 1), 30);
        const QJsonObject bomb = printedJson(result);
        QVERIFY2(!bomb.isEmpty(), describe(result).constData());
        const int created = bomb.value(QLatin1String("created")).toInt();
        QCOMPARE(bomb.value(QLatin1String("errno")).toInt(), kErrnoEagain);
        // The interpreter and the init count too.
        QVERIFY2(created <= 32 && created >= 32 - 6, describe(result).constData());
        QVERIFY(stillServes(*server));
    }

    // --- memory -------------------------------------------------------------------------------

    void allocatingTwoGibibytesIsKilledAsOutOfMemory()
    {
        const QJsonObject result =
            python(*m_server,
                   QStringLiteral("chunks = []\nfor i in range(20):\n"
                                  "    chunks.append(b'x' * (100 * 1024 * 1024))\n"
                                  "    print(len(chunks), flush=True)\nprint('survived')\n"),
                   30);
        if (TestEngine::isolation() == QLatin1String("gvisor")) {
            // The host's limit stops gVisor's whole sandbox, and nothing records why: the call
            // fails, says that this is how a program over its memory limit ends, and the server
            // goes on.
            QVERIFY2(isError(result), describe(result).constData());
            QVERIFY2(!text(result).contains(QLatin1String("survived")),
                     describe(result).constData());
            QVERIFY2(text(result).contains(QLatin1String("memory limit (512 MiB)")),
                     describe(result).constData());
            QVERIFY(stillServes(*m_server));
            return;
        }
        QCOMPARE(flag(result, QStringLiteral("oom_killed")), QStringLiteral("true"));
        QCOMPARE(structured(result).value(QLatin1String("exit_code")).toInt(), 137);
        QVERIFY(isError(result));
        QVERIFY2(text(result).contains(QLatin1String("out of memory"), Qt::CaseInsensitive),
                 qPrintable(text(result)));
        QCOMPARE(flag(result, QStringLiteral("timed_out")), QStringLiteral("false"));
        // Killed near 512 MiB: it got past 300 MiB and never reached 600 MiB.
        const QStringList progress = stdoutOf(result).split(u'\n', Qt::SkipEmptyParts);
        QVERIFY2(!progress.isEmpty(), describe(result).constData());
        const int reached = progress.constLast().toInt();
        QVERIFY2(reached >= 3 && reached <= 5, describe(result).constData());
        QVERIFY(stillServes(*m_server));
    }

    void outOfMemoryLeavesNothingInTheServersFolder()
    {
        // conmon writes a file named "oom" in the folder it was started from after an
        // out-of-memory kill: never the folder the MCP client started the server in.
        QTemporaryDir startedIn;
        QVERIFY(startedIn.isValid());
        auto client = std::make_unique<McpStdioClient>();
        client->process().setWorkingDirectory(startedIn.path());
        QVERIFY(
            client->start({QStringLiteral("--pool"), QStringLiteral("1")}, serverEnvironment({})));
        QVERIFY(!client->initialize().isEmpty());
        for (int i = 0; i < 2; ++i) { // started cold or taken from the pool, as it comes
            // Zeroing 512 MiB against the limit, the kernel reclaims what it can before it kills:
            // with both processors busy (other engines' suites beside this one) that took more than
            // 30 s once. How long does not matter here, only that it ends as out of memory.
            const QJsonObject result = python(
                *client, QStringLiteral("x = bytearray(1024 * 1024 * 1024)\n"), 120, 150'000);
            QVERIFY2(flag(result, QStringLiteral("oom_killed")) == QLatin1String("true"),
                     describe(result).constData());
        }
        client->closeStdin();
        QVERIFY(client->waitForExit(30'000));
        QCOMPARE(QDir(startedIn.path())
                     .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
                 QStringList());
    }

    void selfInflictedKillIsNotOutOfMemory()
    {
        const QJsonObject result =
            python(*m_server, QStringLiteral("import os\nos.kill(os.getpid(), 9)"), 20);
        QCOMPARE(structured(result).value(QLatin1String("exit_code")).toInt(), 137);
        QCOMPARE(flag(result, QStringLiteral("oom_killed")), QStringLiteral("false"));
        QVERIFY(!text(result).contains(QLatin1String("out of memory"), Qt::CaseInsensitive));
    }

    void memoryFlagBoundsTheProgram()
    {
        auto server = startServer({QStringLiteral("--memory"), QStringLiteral("128m")});
        QVERIFY(server);
        const QJsonObject big = python(
            *server, QStringLiteral("b = b'x' * (300 * 1000 * 1000)\nprint('survived')"), 30);
        QVERIFY2(flag(big, QStringLiteral("oom_killed")) == QLatin1String("true"),
                 describe(big).constData());
        QCOMPARE(structured(big).value(QLatin1String("exit_code")).toInt(), 137);
        QVERIFY(isError(big));
        QVERIFY(!stdoutOf(big).contains(QLatin1String("survived")));

        const QJsonObject small = python(
            *server, QStringLiteral("b = b'x' * (50 * 1000 * 1000)\nprint('ok', len(b))"), 30);
        QCOMPARE(stdoutOf(small), QStringLiteral("ok 50000000\n"));
        QCOMPARE(structured(small).value(QLatin1String("exit_code")).toInt(-1), 0);
        QCOMPARE(flag(small, QStringLiteral("oom_killed")), QStringLiteral("false"));
        QCOMPARE(flag(small, QStringLiteral("truncated")), QStringLiteral("false"));
        QCOMPARE(isError(small), false);
    }

    // --- disk ---------------------------------------------------------------------------------

    void fillingTmpAndSandboxStopsAtTheTmpfsSize()
    {
        const qint64 availableBefore = hostDiskAvailable();
        QVERIFY(availableBefore > 0);
        // Without a size limit this would write 256 MiB to each place.
        const int id = startPython(*m_server,
                                   diskFiller({QStringLiteral("/tmp/fill"), QStringLiteral("fill"),
                                               QStringLiteral("/dev/shm/fill")},
                                              256 * kMiB),
                                   60);
        qint64 leastAvailable = availableBefore;
        std::optional<QJsonObject> response;
        QDeadlineTimer deadline(90'000);
        while (!response && !deadline.hasExpired()) {
            leastAvailable = std::min(leastAvailable, hostDiskAvailable());
            response = m_server->waitForResponse(id, 50);
        }
        QVERIFY(response);
        const QJsonObject result = response->value(QLatin1String("result")).toObject();
        const QJsonObject fill = printedJson(result);
        QVERIFY2(!fill.isEmpty(), describe(result).constData());
        QCOMPARE(fill.value(QLatin1String("cwd")).toString(), QStringLiteral("/sandbox"));
        for (const QLatin1String place :
             {QLatin1String("/tmp/fill"), QLatin1String("fill"), QLatin1String("/dev/shm/fill")}) {
            const QJsonObject outcome = fill.value(place).toObject();
            const qint64 written = outcome.value(QLatin1String("written")).toInteger();
            QVERIFY2(outcome.value(QLatin1String("errno")).toInt() == kErrnoEnospc,
                     describe(result).constData());
            QVERIFY2(written >= 56 * kMiB && written <= 64 * kMiB, describe(result).constData());
        }
        // The sandbox's files live in memory: the host's disk did not fill up with them. (The
        // margin is for whatever else this machine writes meanwhile.)
        QVERIFY2(availableBefore - leastAvailable < 64 * kMiB + 64 * kMiB,
                 qPrintable(QStringLiteral("host disk free space dropped by %1 MiB")
                                .arg((availableBefore - leastAvailable) / kMiB)));
        QVERIFY(stillServes(*m_server));
    }

    void tmpfsSizeFlagIsEnforced()
    {
        auto server = startServer({QStringLiteral("--tmpfs-size"), QStringLiteral("16m")});
        QVERIFY(server);
        const QJsonObject result = python(
            *server,
            diskFiller({QStringLiteral("/tmp/fill"), QStringLiteral("/sandbox/fill")}, 256 * kMiB),
            60);
        const QJsonObject fill = printedJson(result);
        QVERIFY2(!fill.isEmpty(), describe(result).constData());
        for (const QLatin1String place :
             {QLatin1String("/tmp/fill"), QLatin1String("/sandbox/fill")}) {
            const QJsonObject outcome = fill.value(place).toObject();
            const qint64 written = outcome.value(QLatin1String("written")).toInteger();
            QVERIFY2(outcome.value(QLatin1String("errno")).toInt() == kErrnoEnospc,
                     describe(result).constData());
            QVERIFY2(written >= 14 * kMiB && written <= 16 * kMiB, describe(result).constData());
        }
    }

    void writingOutsideTmpAndSandboxFails()
    {
        // The root filesystem is read-only, and no other writable place may appear: /var/tmp is
        // world-writable in the image, and podman's --read-only mounts an unbounded tmpfs on
        // /var/tmp and /run unless told not to (--read-only-tmpfs=false).
        const QJsonObject result = python(*m_server, QStringLiteral(R"(import json, os
result = {}
for path in ['/x', '/etc/x', '/home/x', '/root/x', '/usr/x', '/usr/local/x', '/var/x',
             '/var/lib/x', '/var/tmp/x', '/run/x', '/run/lock/x', '/opt/x', '/srv/x', '/mnt/x',
             '/dev/x']:
    if not os.path.isdir(os.path.dirname(path)):
        result[path] = 'absent'
        continue
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        result[path] = 'written'
    except OSError as e:
        result[path] = e.errno
print(json.dumps(result))
)"),
                                          20);
        const QJsonObject writes = printedJson(result);
        QVERIFY2(writes.size() == 15, describe(result).constData());
        for (auto it = writes.constBegin(); it != writes.constEnd(); ++it) {
            const QJsonValue outcome = it.value();
            const bool refused = outcome == QJsonValue(QStringLiteral("absent")) ||
                                 outcome == QJsonValue(kErrnoErofs) ||
                                 outcome == QJsonValue(kErrnoEacces) ||
                                 outcome == QJsonValue(kErrnoEperm);
            QVERIFY2(refused, qPrintable(QStringLiteral("%1: %2").arg(
                                  it.key(), QString::fromUtf8(describe(result)))));
        }
    }

    // --- output -------------------------------------------------------------------------------

    void printingOneGibibyteIsTruncatedAtTheCap()
    {
        // A server of its own: its peak memory (VmHWM) must owe nothing to other tests.
        auto server = startServer();
        QVERIFY(server);
        const qint64 rssBefore = statusBytes(server->pid(), QLatin1String("VmRSS"));
        QVERIFY(rssBefore > 0);
        QElapsedTimer clock;
        clock.start();
        const QJsonObject result = python(*server, QStringLiteral(R"(import sys
chunk = b'x' * 65536
for _ in range(16384):
    sys.stdout.buffer.write(chunk)
sys.stdout.buffer.flush()
chunk = b'e' * 65536
for _ in range(64):
    sys.stderr.buffer.write(chunk)
)"),
                                          120, 150'000);
        qInfo("1 GiB of output took %lld ms", clock.elapsed());
        const qint64 rssAfter = statusBytes(server->pid(), QLatin1String("VmRSS"));
        const qint64 peak = statusBytes(server->pid(), QLatin1String("VmHWM"));
        QVERIFY(!result.isEmpty());
        QCOMPARE(flag(result, QStringLiteral("timed_out")), QStringLiteral("false"));
        QCOMPARE(structured(result).value(QLatin1String("exit_code")).toInt(-1), 0);
        QCOMPARE(flag(result, QStringLiteral("truncated")), QStringLiteral("true"));
        const QString out = stdoutOf(result);
        QCOMPARE(out.size(), 1024 * 1024);
        QCOMPARE(out.count(u'x'), 1024 * 1024);
        const QString err = stderrOf(result);
        QCOMPARE(err.size(), 1024 * 1024);
        QCOMPARE(err.count(u'e'), 1024 * 1024);
        QVERIFY(text(result).contains(QLatin1String("truncated")));
        QCOMPARE(isError(result), false);
        const QString memory = QStringLiteral("server RSS %1 -> %2 MiB, peak %3 MiB")
                                   .arg(rssBefore / kMiB)
                                   .arg(rssAfter / kMiB)
                                   .arg(peak / kMiB);
        qInfo("%s", qPrintable(memory));
        QVERIFY2(rssAfter - rssBefore < 100 * kMiB, qPrintable(memory));
        QVERIFY2(peak - rssBefore < 100 * kMiB, qPrintable(memory));
    }

    void outputCapFlagIsEnforced()
    {
        auto server = startServer({QStringLiteral("--output-cap"), QStringLiteral("1k")});
        QVERIFY(server);
        const QJsonObject ascii = python(
            *server,
            QStringLiteral("import sys\nprint('o' * 5000, end='')\nprint('e' * 5000, end='', "
                           "file=sys.stderr)"),
            20);
        QCOMPARE(stdoutOf(ascii), QString(1024, u'o'));
        QCOMPARE(stderrOf(ascii), QString(1024, u'e'));
        QCOMPARE(flag(ascii, QStringLiteral("truncated")), QStringLiteral("true"));
        QVERIFY(text(ascii).contains(QLatin1String("truncated")));

        // The cap counts UTF-8 bytes, and a character cut by it must not push past it.
        const QJsonObject euros =
            python(*server, QStringLiteral("print('\\u20ac' * 2000, end='')"), 20);
        const QByteArray utf8 = stdoutOf(euros).toUtf8();
        QVERIFY2(utf8.size() <= 1024 && utf8.size() >= 1024 - 6,
                 qPrintable(QStringLiteral("%1 bytes").arg(utf8.size())));
        QCOMPARE(stdoutOf(euros).left(340), QString(340, QChar(0x20ac)));
        QCOMPARE(flag(euros, QStringLiteral("truncated")), QStringLiteral("true"));

        // Printing without end until the deadline: the launcher drops what passes the cap and
        // never gets to say how much, yet the result says it was cut.
        const QJsonObject endless =
            python(*server,
                   QStringLiteral("import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n"
                                  "    sys.stdout.flush()\n"),
                   5);
        QCOMPARE(flag(endless, QStringLiteral("timed_out")), QStringLiteral("true"));
        QCOMPARE(stdoutOf(endless), QString(1024, u'y'));
        QVERIFY2(flag(endless, QStringLiteral("truncated")) == QStringLiteral("true"),
                 describe(endless).constData());

        const QJsonObject quiet = python(*server, QStringLiteral("print('x' * 1000)"), 20);
        QCOMPARE(stdoutOf(quiet).size(), 1001);
        QCOMPARE(flag(quiet, QStringLiteral("truncated")), QStringLiteral("false"));
        QVERIFY(!text(quiet).contains(QLatin1String("truncated")));
    }

    // --- network ------------------------------------------------------------------------------

    void networkNoneLeavesOnlyLoopback()
    {
        auto server = startServer({QStringLiteral("--network"), QStringLiteral("none")});
        QVERIFY(server);
        const QJsonObject result = python(*server, QStringLiteral(R"(import json, os, socket
r = {'sys': sorted(os.listdir('/sys/class/net')),
     'proc': sorted(l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:])}
try:
    socket.create_connection(('1.1.1.1', 53), timeout=3).close()
    r['connect'] = 'connected'
except OSError as e:
    r['connect'] = 'failed: %s' % e
try:
    socket.getaddrinfo('example.com', 80)
    r['resolve'] = 'resolved'
except OSError as e:
    r['resolve'] = 'failed: %s' % e
print(json.dumps(r))
)"),
                                          20);
        const QJsonObject net = printedJson(result);
        QVERIFY2(!net.isEmpty(), describe(result).constData());
        QCOMPARE(net.value(QLatin1String("sys")).toArray(), QJsonArray{QStringLiteral("lo")});
        QCOMPARE(net.value(QLatin1String("proc")).toArray(), QJsonArray{QStringLiteral("lo")});
        QVERIFY2(net.value(QLatin1String("connect")).toString().startsWith(QLatin1String("failed")),
                 describe(result).constData());
        QVERIFY2(net.value(QLatin1String("resolve")).toString().startsWith(QLatin1String("failed")),
                 describe(result).constData());
    }

    void bridgeHasAnInterface()
    {
        auto server = startServer({QStringLiteral("--egress"), QStringLiteral("bridge")});
        QVERIFY(server);
        // Only the interfaces are looked at: no traffic leaves this machine.
        const QJsonObject result =
            python(*server,
                   QStringLiteral(
                       "import json, os\nprint(json.dumps(sorted(os.listdir('/sys/class/net'))))"),
                   20);
        const QJsonArray interfaces = QJsonDocument::fromJson(stdoutOf(result).toUtf8()).array();
        QVERIFY2(interfaces.contains(QStringLiteral("lo")) && interfaces.size() >= 2,
                 describe(result).constData());
    }

    // --- host isolation -----------------------------------------------------------------------

    void hostFilesAreInvisible()
    {
        const QString marker = QStringLiteral("csm-host-marker-%1-%2")
                                   .arg(QCoreApplication::applicationPid())
                                   .arg(QRandomGenerator::global()->generate());
        const QStringList hostFiles{QStringLiteral("/tmp/") + marker,
                                    QDir::homePath() + QLatin1Char('/') + marker};
        for (const QString& path : hostFiles) {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("host secret\n");
        }
        auto cleanup = qScopeGuard([&] {
            for (const QString& path : hostFiles)
                QFile::remove(path);
        });
        const QJsonObject result = python(*m_server,
                                          QStringLiteral(R"(import json, os, socket
name = '%1'
r = {'tmp': os.path.exists('/tmp/' + name),
     'home': os.path.exists('%2/' + name),
     'root': os.path.exists('/root/' + name),
     'hostname': open('/etc/hostname').read().strip(),
     'gethostname': socket.gethostname()}
found = []
for base in ['/tmp', '/sandbox', '/root', '/home', '/mnt', '/media', '/srv', '/opt', '/run', '/var']:
    for directory, dirs, files in os.walk(base):
        if name in files:
            found.append(directory)
r['found'] = found
print(json.dumps(r))
)")
                                              .arg(marker, QDir::homePath()),
                                          30);
        const QJsonObject seen = printedJson(result);
        QVERIFY2(!seen.isEmpty(), describe(result).constData());
        QCOMPARE(seen.value(QLatin1String("tmp")).toBool(true), false);
        QCOMPARE(seen.value(QLatin1String("home")).toBool(true), false);
        QCOMPARE(seen.value(QLatin1String("root")).toBool(true), false);
        QCOMPARE(seen.value(QLatin1String("found")).toArray(), QJsonArray());
        const QString hostHostname = readHostFile(QStringLiteral("/etc/hostname"));
        QVERIFY(!seen.value(QLatin1String("hostname")).toString().isEmpty());
        QVERIFY2(seen.value(QLatin1String("hostname")).toString() != hostHostname,
                 describe(result).constData());
        QVERIFY2(seen.value(QLatin1String("gethostname")).toString() != QSysInfo::machineHostName(),
                 describe(result).constData());
    }

    void environmentReachesOnlyNamedVariablesAndSecretsStayHidden()
    {
        const QString secret = QStringLiteral("csm-secret-%1-%2")
                                   .arg(QCoreApplication::applicationPid())
                                   .arg(QRandomGenerator::global()->generate());
        auto server =
            // --no-redact: the value comes back, proving it reached the sandbox; the log must
            // still not hold it.
            startServer({QStringLiteral("--verbose"), QStringLiteral("--no-redact"),
                         QStringLiteral("--pass-through-env"), QStringLiteral("CSM_TEST_SECRET")},
                        {{QStringLiteral("CSM_TEST_SECRET"), secret},
                         {QStringLiteral("CSM_TEST_OTHER"), QStringLiteral("not-passed")}});
        QVERIFY(server);
        const QString marker = uniqueMarker();
        const int id = startPython(
            *server,
            announce(marker) +
                QStringLiteral("import os, time\nprint(os.environ.get('CSM_TEST_SECRET'))\n"
                               "print(os.environ.get('CSM_TEST_OTHER'))\ntime.sleep(2)"),
            20);
        // From the request until the answer, including while the program runs: no argv of any
        // process (server, engine client, engine, container) holds the value.
        int scansWhileRunning = 0;
        std::optional<QJsonObject> response;
        QDeadlineTimer deadline(30'000);
        while (!response && !deadline.hasExpired()) {
            const bool running = !hostProcessesNamed(marker).isEmpty();
            for (const QString& commandLine : allCommandLines())
                QVERIFY2(!commandLine.contains(secret), qPrintable(commandLine));
            scansWhileRunning += running ? 1 : 0;
            response = server->waitForResponse(id, 50);
        }
        QVERIFY(response);
        QVERIFY2(scansWhileRunning > 0, "never looked while the program ran");
        QCOMPARE(stdoutOf(response->value(QLatin1String("result")).toObject()),
                 secret + QStringLiteral("\nNone\n"));
        server->closeStdin();
        QVERIFY(server->waitForExit(15'000));
        const QString log = server->standardError();
        QVERIFY2(!log.isEmpty(), "--verbose logged nothing");
        QVERIFY2(!log.contains(secret), qPrintable(log));
    }

    void sandboxesRunAsTheHostUidDoctorNames()
    {
        // doctor says every sandbox runs as host uid 65534 here (Podman 4.3 cannot give each
        // its own: --userns=auto hangs when they start side by side), and tst_StdioServer checks
        // that it says so. Two live ones show that it is true. (A set-id file, the way another
        // account would take that uid, is refused in tst_Escapes.)
        const QString markers[2] = {uniqueMarker(), uniqueMarker()};
        const QString program = QStringLiteral("import time\ntime.sleep(8)\n");
        const int ids[2] = {startPython(*m_server, announce(markers[0]) + program, 30),
                            startPython(*m_server, announce(markers[1]) + program, 30)};
        QString uids[2];
        QDeadlineTimer deadline(20'000);
        while ((uids[0].isEmpty() || uids[1].isEmpty()) && !deadline.hasExpired()) {
            for (int i = 0; i < 2; ++i) {
                const QList<qint64> found = hostProcessesNamed(markers[i]);
                if (!uids[i].isEmpty() || found.isEmpty())
                    continue;
                // Read at once, while it surely runs.
                const QString status =
                    readHostFile(QStringLiteral("/proc/%1/status").arg(found.constFirst()));
                const QRegularExpressionMatch uid =
                    QRegularExpression(QStringLiteral("\\nUid:\\s+(\\d+)\\s+(\\d+)")).match(status);
                if (uid.hasMatch())
                    uids[i] = uid.captured(1) + u' ' + uid.captured(2);
            }
            QTest::qWait(50);
        }
        QCOMPARE(uids[0], QStringLiteral("65534 65534"));
        QCOMPARE(uids[1], QStringLiteral("65534 65534"));
        for (const int id : ids) {
            const auto response = m_server->waitForResponse(id, 30'000);
            QVERIFY(response);
            QVERIFY2(!isError(response->value(QLatin1String("result")).toObject()),
                     describe(response->value(QLatin1String("result")).toObject()).constData());
        }
    }

    void sandboxRunsUnprivileged()
    {
        const QJsonObject result = python(*m_server, QStringLiteral(R"(import json, os
r = {'uid': os.getuid(), 'euid': os.geteuid(), 'gid': os.getgid()}
for line in open('/proc/self/status'):
    key, _, value = line.partition(':')
    if key in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs'):
        r[key] = value.strip()
import ctypes
r['prctlNoNewPrivs'] = ctypes.CDLL(None, use_errno=True).prctl(39, 0, 0, 0, 0)
try:
    os.setuid(0)
    r['setuid'] = 'root'
except OSError as e:
    r['setuid'] = e.errno
root = [l.split() for l in open('/proc/self/mounts') if l.split()[1] == '/']
r['rootOptions'] = root[-1][3].split(',') if root else []
try:
    open('/usr/x', 'w').close()
    r['usr'] = 'written'
except OSError as e:
    r['usr'] = e.errno
print(json.dumps(r))
)"),
                                          20);
        const QJsonObject seen = printedJson(result);
        QVERIFY2(!seen.isEmpty(), describe(result).constData());
        QCOMPARE(seen.value(QLatin1String("uid")).toInt(), 65534);
        QCOMPARE(seen.value(QLatin1String("euid")).toInt(), 65534);
        QVERIFY(seen.value(QLatin1String("gid")).toInt(0) != 0);
        const QString none = QStringLiteral("0000000000000000");
        for (const QLatin1String set :
             {QLatin1String("CapInh"), QLatin1String("CapPrm"), QLatin1String("CapEff"),
              QLatin1String("CapBnd"), QLatin1String("CapAmb")}) {
            // gVisor's kernel has no ambient set, and its status file no line for it.
            if (underGvisor() && set == QLatin1String("CapAmb") && !seen.contains(set))
                continue;
            QCOMPARE(seen.value(set).toString(), none);
        }
        // Asked of the kernel (PR_GET_NO_NEW_PRIVS), and where it says so, in the status file.
        QCOMPARE(seen.value(QLatin1String("prctlNoNewPrivs")).toInt(), 1);
        if (!underGvisor())
            QCOMPARE(seen.value(QLatin1String("NoNewPrivs")).toString(), QStringLiteral("1"));
        QCOMPARE(seen.value(QLatin1String("setuid")).toInt(), kErrnoEperm);
        QVERIFY2(seen.value(QLatin1String("rootOptions")).toArray().contains(QStringLiteral("ro")),
                 describe(result).constData());
        // gVisor's kernel checks the permission before the read-only mount: EACCES there (the
        // mount is read-only all the same, as its options above say).
        QCOMPARE(seen.value(QLatin1String("usr")).toInt(),
                 underGvisor() ? kErrnoEacces : kErrnoErofs);

        const QJsonObject js = m_server->callTool(
            QStringLiteral("run_js_code"),
            code(QStringLiteral("console.log(process.getuid(), process.geteuid())"), 20));
        QCOMPARE(stdoutOf(js), QStringLiteral("65534 65534\n"));
    }

    void everyCallGetsAFreshSandbox()
    {
        // The first program leaves files and a daemonized child behind.
        const QString marker = uniqueMarker();
        QElapsedTimer clock;
        clock.start();
        const QJsonObject first = python(*m_server,
                                         QStringLiteral(R"(import os, socket, time
open('/tmp/left-behind', 'w').write('x')
open('/sandbox/left-behind', 'w').write('x')
if os.fork() == 0:
    os.setsid()
    open('/proc/self/comm', 'w').write('%1')
    time.sleep(60)
    os._exit(0)
print(socket.gethostname())
)")
                                             .arg(marker),
                                         30);
        // The orphan sleeps 60 s; the bound leaves room for a cold start on a loaded machine.
        QVERIFY2(clock.elapsed() < 25'000, "the call waited for the program's orphan");
        QCOMPARE(flag(first, QStringLiteral("timed_out")), QStringLiteral("false"));
        QCOMPARE(structured(first).value(QLatin1String("exit_code")).toInt(-1), 0);
        const QString firstHost = stdoutOf(first).trimmed();
        QVERIFY(!firstHost.isEmpty());
        // The orphan went with its sandbox.
        QDeadlineTimer deadline(10'000);
        while (!hostProcessesNamed(marker).isEmpty() && !deadline.hasExpired())
            QTest::qWait(100);
        QVERIFY2(hostProcessesNamed(marker).isEmpty(), "the program's orphan outlived the call");

        const QJsonObject second = python(*m_server,
                                          QStringLiteral(R"(import json, os, socket
names = []
for pid in os.listdir('/proc'):
    try:
        names.append(open('/proc/%s/comm' % pid).read().strip())
    except OSError:
        pass
print(json.dumps({'tmp': os.path.exists('/tmp/left-behind'),
                  'sandbox': os.path.exists('/sandbox/left-behind'),
                  'orphan': '%1' in names,
                  'host': socket.gethostname()}))
)")
                                              .arg(marker),
                                          30);
        const QJsonObject seen = printedJson(second);
        QVERIFY2(!seen.isEmpty(), describe(second).constData());
        QCOMPARE(seen.value(QLatin1String("tmp")).toBool(true), false);
        QCOMPARE(seen.value(QLatin1String("sandbox")).toBool(true), false);
        QCOMPARE(seen.value(QLatin1String("orphan")).toBool(true), false);
        QVERIFY(seen.value(QLatin1String("host")).toString() != firstHost);
    }

    // --- containers and their owners ----------------------------------------------------------

    void containersAreLabelledWithTheirServer()
    {
        const QString marker = uniqueMarker();
        const int id = startPython(
            *m_server, announce(marker) + QStringLiteral("import time\ntime.sleep(3)"), 20);
        const QString container = waitForRunningContainer(marker);
        QVERIFY2(!container.isEmpty(), "the program never ran");
        const QJsonObject labels = labelsOf(container);
        QCOMPARE(labels.value(QLatin1String("code-sandbox.app")).toString(),
                 QStringLiteral("code-sandbox-mcp"));
        QCOMPARE(labels.value(QLatin1String("code-sandbox.pid")).toString(),
                 QString::number(m_server->pid()));
        QVERIFY(!labels.value(QLatin1String("code-sandbox.instance")).toString().isEmpty());
        QVERIFY2(!labels.value(QLatin1String("code-sandbox.host")).toString().isEmpty(),
                 QJsonDocument(labels).toJson().constData());
        QVERIFY(m_server->waitForResponse(id));
    }

    void killedServersContainersAreRemovedByTheNextServer()
    {
        // A server killed with SIGKILL mid-run leaves its container behind.
        auto doomed = startServer();
        QVERIFY(doomed);
        const qint64 dead = doomed->pid();
        const QString doomedMarker = uniqueMarker();
        startPython(*doomed, announce(doomedMarker) + QStringLiteral("import time\ntime.sleep(60)"),
                    90);
        const QString orphan = waitForRunningContainer(doomedMarker);
        QVERIFY2(!orphan.isEmpty(), "the program never ran");
        ::kill(static_cast<pid_t>(dead), SIGKILL);
        QVERIFY(doomed->waitForExit(10'000));
        auto removeOrphans = qScopeGuard([dead] {
            const QStringList left = TestEngine::containersWithLabel(pidLabel(dead));
            if (!left.isEmpty())
                TestEngine::run(forceRemoveArguments(left));
        });
        QVERIFY2(containerExists(orphan), "the killed server's container ended on its own");

        // Containers the next server must leave alone: a live server's, and one from another
        // host (whose pid means nothing here).
        const QString liveMarker = uniqueMarker();
        QElapsedTimer liveClock;
        liveClock.start();
        const int live = startPython(
            *m_server,
            announce(liveMarker) + QStringLiteral("import time\ntime.sleep(15)\nprint('survived')"),
            40);
        const QString liveContainer = waitForRunningContainer(liveMarker);
        QVERIFY2(!liveContainer.isEmpty(), "the live server's program never ran");
        const QString foreign =
            QStringLiteral("csm-test-foreign-%1").arg(QCoreApplication::applicationPid());
        const QString host =
            labelsOf(liveContainer).value(QLatin1String("code-sandbox.host")).toString();
        bool ok = false;
        TestEngine::run({QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--rm"),
                         QStringLiteral("--name"), foreign, QStringLiteral("--label"),
                         QStringLiteral("code-sandbox.app=code-sandbox-mcp"),
                         QStringLiteral("--label"),
                         QStringLiteral("code-sandbox.instance=csmtestforeign"),
                         QStringLiteral("--label"), pidLabel(deadPid()), QStringLiteral("--label"),
                         QStringLiteral("code-sandbox.host=csm-test-elsewhere-") + host,
                         TestEngine::localImage(QStringLiteral("code-sandbox-python:latest")),
                         QStringLiteral("python3"), QStringLiteral("-c"),
                         QStringLiteral("import time; time.sleep(120)")},
                        &ok);
        QVERIFY(ok);
        auto removeForeign = qScopeGuard([&] { TestEngine::run(forceRemoveArguments({foreign})); });

        auto next = startServer();
        QVERIFY(next);
        QElapsedTimer clock;
        clock.start();
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(dead), 20'000), QStringList());
        qInfo("the dead server's containers were removed after %lld ms", clock.elapsed());
        QVERIFY(!containerExists(orphan));
        if (liveClock.elapsed() < 12'000)
            QVERIFY2(containerExists(liveContainer), "a live server's container was removed");
        const QJsonObject fine = python(*next, QStringLiteral("print('fine')"), 20);
        QCOMPARE(stdoutOf(fine), QStringLiteral("fine\n"));

        QCOMPARE(
            TestEngine::containersWithLabel(QStringLiteral("code-sandbox.instance=csmtestforeign")),
            QStringList{foreign});
        const auto liveResponse = m_server->waitForResponse(live, 30'000);
        QVERIFY(liveResponse);
        const QJsonObject liveResult = liveResponse->value(QLatin1String("result")).toObject();
        QCOMPARE(stdoutOf(liveResult), QStringLiteral("survived\n"));
        QCOMPARE(isError(liveResult), false);
    }

    // --- faults -------------------------------------------------------------------------------

    void containerKilledFromOutside_data()
    {
        QTest::addColumn<QStringList>("command"); // the container's ID is appended
        QTest::newRow("rm -f") << forceRemoveArguments({});
        QTest::newRow("kill") << QStringList{QStringLiteral("kill")};
    }

    void containerKilledFromOutside()
    {
        QFETCH(QStringList, command);
        const QString marker = uniqueMarker();
        const int id = startPython(*m_server,
                                   QStringLiteral("import time\nprint('before', flush=True)\n") +
                                       announce(marker) + QStringLiteral("time.sleep(30)"),
                                   60);
        const QString container = waitForRunningContainer(marker);
        QVERIFY2(!container.isEmpty(), "the program never ran");
        bool ok = false;
        TestEngine::run(command + QStringList{container}, &ok);
        QVERIFY(ok);
        const auto response = m_server->waitForResponse(id, 20'000);
        QVERIFY2(response, "no answer after the container was killed");
        const QJsonObject result = response->value(QLatin1String("result")).toObject();
        QVERIFY2(isError(result), describe(result).constData());
        QVERIFY(!text(result).trimmed().isEmpty());
        QVERIFY2(flag(result, QStringLiteral("oom_killed")) != QLatin1String("true"),
                 describe(result).constData());
        QVERIFY2(flag(result, QStringLiteral("timed_out")) != QLatin1String("true"),
                 describe(result).constData());
        QVERIFY(waitUntilContainerGone(container, 15'000));
        QVERIFY(stillServes(*m_server));
    }

    void programClosingItsOutputCompletes()
    {
        QElapsedTimer clock;
        clock.start();
        const QJsonObject result = python(
            *m_server,
            QStringLiteral("import os, time\nos.close(1)\nos.close(2)\ntime.sleep(0.5)\n"), 30);
        // Well before the timeout: the call ended with the program, not at its timeout.
        QVERIFY(clock.elapsed() < 25'000);
        QCOMPARE(flag(result, QStringLiteral("timed_out")), QStringLiteral("false"));
        QCOMPARE(structured(result).value(QLatin1String("exit_code")).toInt(-1), 0);
        QCOMPARE(isError(result), false);
        QVERIFY(stillServes(*m_server));
    }

    void tenMebibytesOfCode()
    {
        const QString program = QStringLiteral("s = '") + QString(10 * 1024 * 1024, u'a') +
                                QStringLiteral("'\nprint(len(s))\n");
        const QJsonObject result = python(*m_server, program, 60, 120'000);
        QCOMPARE(stdoutOf(result), QStringLiteral("10485760\n"));
        QVERIFY(stillServes(*m_server));
    }

    void wrongArgumentTypesAreClearErrors_data()
    {
        QTest::addColumn<QJsonValue>("arguments");
        QTest::addColumn<QString>("named"); // what the message must mention
        QTest::newRow("code is a number")
            << QJsonValue(QJsonObject{{QStringLiteral("code"), 42}}) << QStringLiteral("code");
        QTest::newRow("timeout is a string")
            << QJsonValue(QJsonObject{{QStringLiteral("code"), QStringLiteral("print(1)")},
                                      {QStringLiteral("timeout_seconds"), QStringLiteral("2")}})
            << QStringLiteral("timeout_seconds");
        QTest::newRow("timeout is negative")
            << QJsonValue(QJsonObject{{QStringLiteral("code"), QStringLiteral("print(1)")},
                                      {QStringLiteral("timeout_seconds"), -1}})
            << QStringLiteral("timeout_seconds");
        QTest::newRow("arguments is an array")
            << QJsonValue(QJsonArray{QStringLiteral("print(1)")}) << QStringLiteral("arguments");
    }

    void wrongArgumentTypesAreClearErrors()
    {
        QFETCH(QJsonValue, arguments);
        QFETCH(QString, named);
        const int id =
            m_server->sendRequest(QStringLiteral("tools/call"),
                                  {{QStringLiteral("name"), QStringLiteral("run_python_code")},
                                   {QStringLiteral("arguments"), arguments}});
        const auto response = m_server->waitForResponse(id);
        QVERIFY(response);
        // Either a tool error or a JSON-RPC invalid-params error, naming what is wrong.
        const QJsonObject error = response->value(QLatin1String("error")).toObject();
        const QJsonObject result = response->value(QLatin1String("result")).toObject();
        if (!error.isEmpty()) {
            QCOMPARE(error.value(QLatin1String("code")).toInt(), -32602);
            QVERIFY2(error.value(QLatin1String("message")).toString().contains(named),
                     describe(*response).constData());
        } else {
            QVERIFY2(isError(result), describe(*response).constData());
            QVERIFY2(text(result).contains(named), describe(*response).constData());
        }
        QVERIFY(stillServes(*m_server));
    }

    void unknownToolIsInvalidParams()
    {
        const int id = m_server->sendRequest(
            QStringLiteral("tools/call"),
            toolCall(QStringLiteral("run_cobol_code"), code(QStringLiteral("DISPLAY 1"))));
        const auto response = m_server->waitForResponse(id);
        QVERIFY(response);
        QCOMPARE(
            response->value(QLatin1String("error")).toObject().value(QLatin1String("code")).toInt(),
            -32602);
        QVERIFY(stillServes(*m_server));
    }

    // Last: it stops the Docker daemon (and starts it again, whatever happens).
    void dockerDaemonStoppedMidRun()
    {
        if (TestEngine::name() != QLatin1String("docker"))
            QSKIP("podman has no daemon to stop");
        // It would stop this machine's dockerd, which is not the engine under test, and its
        // restart would ask the remote one whether Docker is up.
        if (TestEngine::isRemote())
            QSKIP("a remote engine's daemon is not this test's to stop");
        if (qEnvironmentVariableIsSet("CSM_TEST_DAEMON_STOP_APART"))
            QSKIP("run apart (integration.docker_daemon_stop.docker), with nothing beside it");
        QVERIFY(dockerAnswers());
        auto restart = qScopeGuard([] { restartDockerDaemon(); });

        const QString marker = uniqueMarker();
        const int id = startPython(
            *m_server, announce(marker) + QStringLiteral("import time\ntime.sleep(60)"), 120);
        QVERIFY2(!waitForRunningContainer(marker).isEmpty(), "the program never ran");
        QVERIFY(stopDockerDaemon());
        const auto response = m_server->waitForResponse(id, 60'000);
        QVERIFY2(response, "no answer after the daemon stopped");
        const QJsonObject result = response->value(QLatin1String("result")).toObject();
        QVERIFY2(isError(result), describe(result).constData());
        QVERIFY2(text(result).contains(QLatin1String("daemon"), Qt::CaseInsensitive) ||
                     text(result).contains(QLatin1String("docker"), Qt::CaseInsensitive),
                 describe(result).constData());

        // Still serving while the daemon is down: a clear error, not a hang.
        const auto pong = m_server->waitForResponse(m_server->sendRequest(QStringLiteral("ping")));
        QVERIFY(pong && pong->contains(QLatin1String("result")));
        const QJsonObject down = python(*m_server, QStringLiteral("print(1)"), 20);
        QVERIFY(isError(down));
        QVERIFY2(text(down).contains(QLatin1String("daemon"), Qt::CaseInsensitive),
                 describe(down).constData());

        restart.dismiss();
        QVERIFY(restartDockerDaemon());
        QVERIFY(stillServes(*m_server));
    }
};

QTEST_GUILESS_MAIN(TestSandboxPolicy)
#include "tst_SandboxPolicy.moc"
