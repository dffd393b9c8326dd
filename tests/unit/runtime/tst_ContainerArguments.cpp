#include "runtime/ContainerRuntime.h"
#include "runtime/ContainerSpec.h"
#include "runtime/DockerRuntime.h"
#include "runtime/EngineAddress.h"
#include "runtime/PodmanRuntime.h"
#include "runtime/RuntimeFactory.h"

#include <QProcess>
#include <QTest>

#include <memory>

using namespace csm;

Q_DECLARE_METATYPE(csm::ImageCheck::Status)
Q_DECLARE_METATYPE(csm::Language)

namespace {

// The program's source must have no way into argv: a spec that carried it would let a runtime
// put it on the command line, where every local user can read it (ps, /proc/PID/cmdline).
template <typename T>
concept HasCodeMember = requires(T spec)
{
    spec.code;
};
template <typename T>
concept HasSourceMember = requires(T spec)
{
    spec.source;
};
template <typename T>
concept HasProgramMember = requires(T spec)
{
    spec.program;
};

std::unique_ptr<ContainerRuntime> makeRuntime(const QString& engine)
{
    if (engine == QLatin1String("podman"))
        return std::make_unique<PodmanRuntime>();
    return std::make_unique<DockerRuntime>();
}

// What the launcher is told of the sample spec's policy: the limits to check, refused when the
// engine does not enforce them, the output cap, and the output folder it carries back.
QStringList launcherOptions(const ContainerSpec& spec)
{
    return {
        QStringLiteral("--limits"),     QStringLiteral("memory=268435456,pids=64,millicpus=500"),
        QStringLiteral("--unenforced"), QStringLiteral("refuse"),
        QStringLiteral("--output-cap"), QString::number(spec.policy.outputCapBytes),
        QStringLiteral("--out-dir"),    spec.policy.workdir + QStringLiteral("/out"),
        QStringLiteral("--out-files"),  QStringLiteral("100"),
        QStringLiteral("--out-bytes"),  QString::number(32 * 1024 * 1024)};
}

ContainerSpec sampleSpec()
{
    ContainerSpec spec;
    spec.name = QStringLiteral("code-sandbox-abc123-7");
    spec.image = QStringLiteral("localhost/code-sandbox-python:latest");
    spec.files = {QStringLiteral("/opt/code sandbox/libexec/csm-launch"),
                  QStringLiteral("/opt/code sandbox/libexec/csm-seccomp.json"),
                  {}};
    spec.command = {QStringLiteral("python3"), QStringLiteral("-u"), QStringLiteral("-")};
    spec.policy.memoryBytes = 256LL * 1024 * 1024;
    spec.policy.cpus = 0.5;
    spec.policy.pidsLimit = 64;
    spec.policy.tmpfsBytes = 32LL * 1024 * 1024;
    spec.policy.network = QStringLiteral("none");
    spec.policy.user = QStringLiteral("65534:65534");
    spec.policy.workdir = QStringLiteral("/sandbox");
    spec.environment = {{QStringLiteral("HOME"), QStringLiteral("/tmp")},
                        {QStringLiteral("LANG"), QStringLiteral("C.UTF-8")}};
    spec.labels = {{QStringLiteral("code-sandbox.app"), QStringLiteral("code-sandbox-mcp")},
                   {QStringLiteral("code-sandbox.instance"), QStringLiteral("abc123")},
                   {QStringLiteral("code-sandbox.language"), QStringLiteral("python")}};
    return spec;
}

// The argument right after `flag`, which must occur exactly once.
QString valueOf(const QStringList& args, const QString& flag)
{
    if (args.count(flag) != 1)
        return QStringLiteral("<%1 occurs %2 times>").arg(flag).arg(args.count(flag));
    const qsizetype index = args.indexOf(flag);
    return index + 1 < args.size() ? args.at(index + 1) : QStringLiteral("<missing value>");
}

// Every value given with a repeatable flag, in order.
QStringList valuesOf(const QStringList& args, const QString& flag)
{
    QStringList values;
    for (qsizetype i = 0; i + 1 < args.size(); ++i) {
        if (args.at(i) == flag)
            values << args.at(i + 1);
    }
    return values;
}

void addEngineRows()
{
    QTest::addColumn<QString>("engine");
    QTest::newRow("podman") << QStringLiteral("podman");
    QTest::newRow("docker") << QStringLiteral("docker");
}

} // namespace

class tst_ContainerArguments final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void startsWithForegroundRun_data() { addEngineRows(); }
    void startsWithForegroundRun();
    void hardeningFlags_data();
    void hardeningFlags();
    void bareFlags_data();
    void bareFlags();
    void memoryIsPassedExactly_data();
    void memoryIsPassedExactly();
    void tmpfsMounts_data() { addEngineRows(); }
    void tmpfsMounts();
    void securityOptions_data() { addEngineRows(); }
    void securityOptions();
    void gvisorRunsUnderItsRuntimeWithItsProfileAndLimits_data() { addEngineRows(); }
    void gvisorRunsUnderItsRuntimeWithItsProfileAndLimits();
    void gvisorAndTheBridgeConflict();
    void eachLanguageCanHaveItsOwnTier();
    void gvisorFailuresAreExplainedWithTheFix_data();
    void gvisorFailuresAreExplainedWithTheFix();
    void dockersGvisorRegistrationIsChecked_data();
    void dockersGvisorRegistrationIsChecked();
    void labels_data() { addEngineRows(); }
    void labels();
    void environment_data() { addEngineRows(); }
    void environment();
    void imageAndCommandLast_data() { addEngineRows(); }
    void imageAndCommandLast();
    void specHasNoCodeToLeak();
    void launcherIsTheReadOnlyEntrypoint_data();
    void pooledContainerRunsDetachedAndListens_data();
    void pooledContainerRunsDetachedAndListens();
    void sessionDriverReportsOnItsReadyFdColdOrPooled_data();
    void sessionDriverReportsOnItsReadyFdColdOrPooled();
    void launcherIsTheReadOnlyEntrypoint();
    void remoteEngineGetsTheLauncherFromItsVolume_data() { addEngineRows(); }
    void remoteEngineGetsTheLauncherFromItsVolume();
    void pooledContainerOnARemoteEngineStaysAttached_data() { addEngineRows(); }
    void pooledContainerOnARemoteEngineStaysAttached();
    void endpointReachesTheCliThroughItsOwnVariables_data();
    void endpointReachesTheCliThroughItsOwnVariables();
    void remoteUrls_data();
    void remoteUrls();
    void egressProxyModeMountsTheEndpointAndSetsTheProxy_data() { addEngineRows(); }
    void egressProxyModeMountsTheEndpointAndSetsTheProxy();
    void egressProxyModeOnARemoteEngineIsCarried_data() { addEngineRows(); }
    void egressProxyModeOnARemoteEngineIsCarried();
    void sharedFoldersAreBindMounts_data() { addEngineRows(); }
    void sharedFoldersAreBindMounts();

    void names_data();
    void names();
    void forceRemoveArguments_data();
    void forceRemoveArguments();
    void imageCheckArguments_data();
    void imageCheckArguments();
    void interpretImageCheck_data();
    void interpretImageCheck();
    void localImageReference_data();
    void localImageReference();
    void defaultImage_data();
    void defaultImage();
    void hintsForPeople_data();
    void hintsForPeople();
    void engineWarnings_data();
    void engineWarnings();
    void setUpNotice_data();
    void setUpNotice();
    void explainFailure_data();
    void explainFailure();

    void factoryCreate_data();
    void factoryCreate();
    void isKnownEngine_data();
    void isKnownEngine();
};

void tst_ContainerArguments::startsWithForegroundRun()
{
    QFETCH(QString, engine);
    const QStringList args = makeRuntime(engine)->runArguments(sampleSpec());
    QVERIFY(args.size() > 3);
    QCOMPARE(args.mid(0, 3),
             (QStringList{QStringLiteral("run"), QStringLiteral("--rm"), QStringLiteral("-i")}));
    // Attached to stdin, never detached or with a terminal (a tty would mangle the output).
    QVERIFY(!args.contains(QStringLiteral("-d")));
    QVERIFY(!args.contains(QStringLiteral("--detach")));
    QVERIFY(!args.contains(QStringLiteral("-t")));
    QVERIFY(!args.contains(QStringLiteral("--tty")));
    QVERIFY(!args.contains(QStringLiteral("--privileged")));
}

void tst_ContainerArguments::hardeningFlags_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("value");

    const ContainerSpec spec = sampleSpec();
    const QList<std::pair<QString, QString>> expected{
        {QStringLiteral("--pull"), QStringLiteral("never")},
        {QStringLiteral("--name"), spec.name},
        {QStringLiteral("--network"), QStringLiteral("none")},
        {QStringLiteral("--memory"), QStringLiteral("256m")},
        // Equal to --memory: no swap on top of the memory limit.
        {QStringLiteral("--memory-swap"), QStringLiteral("256m")},
        {QStringLiteral("--pids-limit"), QStringLiteral("64")},
        {QStringLiteral("--cpus"), QStringLiteral("0.5")},
        {QStringLiteral("--cap-drop"), QStringLiteral("ALL")},
        // --security-opt is given twice: securityOptions() checks both.
        {QStringLiteral("--user"), QStringLiteral("65534:65534")},
        {QStringLiteral("--workdir"), QStringLiteral("/sandbox")},
        {QStringLiteral("--log-driver"), QStringLiteral("none")},
        // /dev/shm is bounded like the other writable folders.
        {QStringLiteral("--shm-size"), QStringLiteral("32m")},
    };
    for (const QString& engine : {QStringLiteral("podman"), QStringLiteral("docker")}) {
        for (const auto& [flag, value] : expected) {
            QTest::addRow("%s %s", qPrintable(engine), qPrintable(flag)) << engine << flag << value;
        }
    }
}

void tst_ContainerArguments::hardeningFlags()
{
    QFETCH(QString, engine);
    QFETCH(QString, flag);
    QFETCH(QString, value);
    const ContainerSpec spec = sampleSpec();
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    QCOMPARE(valueOf(args, flag), value);
    // An option after the image would be handed to the program instead of the engine.
    QVERIFY(args.indexOf(flag) < args.indexOf(spec.image));
}

void tst_ContainerArguments::bareFlags_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("flag");
    for (const QString& engine : {QStringLiteral("podman"), QStringLiteral("docker")}) {
        for (const QString& flag :
             {QStringLiteral("--rm"), QStringLiteral("-i"), QStringLiteral("--read-only")}) {
            QTest::addRow("%s %s", qPrintable(engine), qPrintable(flag)) << engine << flag;
        }
    }
}

void tst_ContainerArguments::bareFlags()
{
    QFETCH(QString, engine);
    QFETCH(QString, flag);
    const ContainerSpec spec = sampleSpec();
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    QCOMPARE(args.count(flag), 1);
    QVERIFY(args.indexOf(flag) < args.indexOf(spec.image));
}

void tst_ContainerArguments::memoryIsPassedExactly_data()
{
    QTest::addColumn<qint64>("bytes");
    QTest::addColumn<QString>("expected");
    constexpr qint64 mib = 1024 * 1024;
    QTest::newRow("512 MiB") << 512 * mib << QStringLiteral("512m");
    QTest::newRow("1 MiB") << mib << QStringLiteral("1m");
    QTest::newRow("1.5 MiB") << mib + mib / 2 << QStringLiteral("1536k");
    QTest::newRow("one byte over 64 MiB") << 64 * mib + 1 << QStringLiteral("67108865");
    QTest::newRow("8 GiB") << 8192 * mib << QStringLiteral("8g");
}

void tst_ContainerArguments::memoryIsPassedExactly()
{
    QFETCH(qint64, bytes);
    QFETCH(QString, expected);
    ContainerSpec spec = sampleSpec();
    spec.policy.memoryBytes = bytes;
    for (const QString& engine : {QStringLiteral("podman"), QStringLiteral("docker")}) {
        const QStringList args = makeRuntime(engine)->runArguments(spec);
        QCOMPARE(valueOf(args, QStringLiteral("--memory")), expected);
        QCOMPARE(valueOf(args, QStringLiteral("--memory-swap")), expected);
    }
}

void tst_ContainerArguments::tmpfsMounts()
{
    QFETCH(QString, engine);
    ContainerSpec spec = sampleSpec();
    spec.policy.workdir = QStringLiteral("/work/dir");
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    const QStringList mounts = valuesOf(args, QStringLiteral("--tmpfs"));
    QCOMPARE(mounts.size(), 2);

    QStringList paths;
    for (const QString& mount : mounts) {
        paths << mount.section(QLatin1Char(':'), 0, 0);
        const QStringList options = mount.section(QLatin1Char(':'), 1).split(QLatin1Char(','));
        QVERIFY2(options.contains(QStringLiteral("size=32m")), qPrintable(mount));
        QVERIFY2(options.contains(QStringLiteral("rw")), qPrintable(mount));
        QVERIFY2(options.contains(QStringLiteral("nosuid")), qPrintable(mount));
        QVERIFY2(options.contains(QStringLiteral("nodev")), qPrintable(mount));
        // Programs may build native code there: Docker's default would be noexec.
        QVERIFY2(options.contains(QStringLiteral("exec")), qPrintable(mount));
        QVERIFY2(!options.contains(QStringLiteral("noexec")), qPrintable(mount));
    }
    paths.sort();
    QCOMPARE(paths, (QStringList{QStringLiteral("/tmp"), QStringLiteral("/work/dir")}));
    QCOMPARE(valueOf(args, QStringLiteral("--workdir")), QStringLiteral("/work/dir"));
}

void tst_ContainerArguments::securityOptions()
{
    QFETCH(QString, engine);
    const ContainerSpec spec = sampleSpec();
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    QStringList options = valuesOf(args, QStringLiteral("--security-opt"));
    options.sort();
    // The project's own seccomp profile, never the engine's default (Podman's allows unshare).
    QCOMPARE(options, (QStringList{QStringLiteral("no-new-privileges"),
                                   QStringLiteral("seccomp=") + spec.files.seccompProfile}));
    QVERIFY(args.indexOf(QStringLiteral("seccomp=") + spec.files.seccompProfile) <
            args.indexOf(spec.image));
}

void tst_ContainerArguments::gvisorRunsUnderItsRuntimeWithItsProfileAndLimits()
{
    QFETCH(QString, engine);
    ContainerSpec spec = sampleSpec();
    spec.policy.isolation = Isolation::Gvisor;
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    const qsizetype run = args.indexOf(QStringLiteral("run"));
    if (engine == QLatin1String("podman")) {
        // Podman takes the runtime and its flags before `run`.
        QCOMPARE(args.mid(0, run),
                 (QStringList{QStringLiteral("--runtime"), QStringLiteral("runsc"),
                              QStringLiteral("--runtime-flag"), QStringLiteral("network=none"),
                              QStringLiteral("--runtime-flag"), QStringLiteral("host-uds=all"),
                              QStringLiteral("--runtime-flag"), QStringLiteral("oci-seccomp")}));
        QCOMPARE(args.count(QStringLiteral("--runtime")), 1);
    } else {
        // Docker, a runtime registered under our name with those flags.
        QCOMPARE(run, 0);
        QCOMPARE(valueOf(args, QStringLiteral("--runtime")), QStringLiteral("code-sandbox-gvisor"));
        QVERIFY(args.indexOf(QStringLiteral("--runtime")) < args.indexOf(spec.image));
    }
    QVERIFY(
        valuesOf(args, QStringLiteral("--security-opt"))
            .contains(QStringLiteral("seccomp=/opt/code sandbox/libexec/csm-seccomp-gvisor.json")));
    // gVisor's threads count against the host's limit; the program's processes, inside.
    QCOMPARE(valueOf(args, QStringLiteral("--pids-limit")), QStringLiteral("1024"));
    QCOMPARE(valueOf(args, QStringLiteral("--ulimit")), QStringLiteral("nproc=64:64"));
    // Memory stays the engine's limit, around the whole sandbox.
    QCOMPARE(valueOf(args, QStringLiteral("--memory")), QStringLiteral("256m"));
    // The launcher is asked to check no cgroup limits, which gVisor's kernel does not show it.
    QVERIFY(!args.contains(QStringLiteral("--limits")));
    QVERIFY(!args.contains(QStringLiteral("--unenforced")));

    // The standard tier has none of it.
    const QStringList standard = makeRuntime(engine)->runArguments(sampleSpec());
    QCOMPARE(standard.constFirst(), QStringLiteral("run"));
    QVERIFY(!standard.contains(QStringLiteral("--runtime")));
    QVERIFY(!standard.contains(QStringLiteral("--ulimit")));
    QCOMPARE(valueOf(standard, QStringLiteral("--pids-limit")), QStringLiteral("64"));
}

void tst_ContainerArguments::gvisorAndTheBridgeConflict()
{
    SandboxPolicy policy;
    policy.network = QStringLiteral("bridge");
    QVERIFY(policy.conflict().isEmpty());
    policy.isolation = Isolation::Gvisor;
    QVERIFY(policy.conflict().contains(QLatin1String("--egress bridge")));
    policy.network = QStringLiteral("none");
    QVERIFY(policy.conflict().isEmpty());
}

// An image's own tier: over --isolation's for that language only, and in the conflict with the
// bridge under its own flag.
void tst_ContainerArguments::eachLanguageCanHaveItsOwnTier()
{
    SandboxPolicy policy;
    QCOMPARE(policy.isolationFor(Language::Python), Isolation::Standard);
    policy.jsIsolation = Isolation::Gvisor;
    QCOMPARE(policy.isolationFor(Language::Python), Isolation::Standard);
    QCOMPARE(policy.isolationFor(Language::JavaScript), Isolation::Gvisor);
    QVERIFY(policy.uses(Isolation::Gvisor));
    policy.network = QStringLiteral("bridge");
    QVERIFY2(policy.conflict().contains(QLatin1String("--js-isolation gvisor")),
             qPrintable(policy.conflict()));
    // gVisor everywhere but for Python's image: JavaScript's still conflicts, under --isolation.
    policy.jsIsolation.reset();
    policy.isolation = Isolation::Gvisor;
    policy.pythonIsolation = Isolation::Standard;
    QCOMPARE(policy.isolationFor(Language::Python), Isolation::Standard);
    QVERIFY2(policy.conflict().startsWith(QLatin1String("--isolation gvisor")),
             qPrintable(policy.conflict()));
    // Both asked for by their own flags over --isolation's: the first's is named.
    policy.isolation = Isolation::Standard;
    policy.pythonIsolation.reset();
    policy.jsIsolation = Isolation::Gvisor;
    QVERIFY2(policy.conflict().startsWith(QLatin1String("--js-isolation gvisor")),
             qPrintable(policy.conflict()));
    policy.isolation = Isolation::Gvisor;
    policy.pythonIsolation = Isolation::Standard;
    QVERIFY2(policy.conflict().startsWith(QLatin1String("--js-isolation gvisor")),
             qPrintable(policy.conflict()));
    // Neither language under gVisor: the bridge is theirs.
    policy.jsIsolation = Isolation::Standard;
    QVERIFY(!policy.uses(Isolation::Gvisor));
    QVERIFY(policy.conflict().isEmpty());
}

void tst_ContainerArguments::gvisorFailuresAreExplainedWithTheFix_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QByteArray>("standardError");
    QTest::addColumn<QString>("fix");
    // What each engine said here when it could not start a sandbox under gVisor.
    QTest::newRow("docker, not registered")
        << QStringLiteral("docker")
        << QByteArray("docker: Error response from daemon: Unknown runtime specified "
                      "code-sandbox-gvisor")
        << QStringLiteral("runsc install --runtime code-sandbox-gvisor -- --network=none "
                          "--host-uds=all --oci-seccomp");
    QTest::newRow("podman, no runsc") << QStringLiteral("podman")
                                      << QByteArray("Error: default OCI runtime \"runsc\" not "
                                                    "found: invalid argument")
                                      << QStringLiteral("apt-get install runsc");
    QTest::newRow("podman, rootless")
        << QStringLiteral("podman")
        << QByteArray("Error: runsc: creating container: cannot set up cgroup for root: "
                      "configuring cgroup: mkdir /sys/fs/cgroup/cpuacct/x: permission denied: OCI "
                      "permission denied")
        << QStringLiteral("as root");
    QTest::newRow("podman's remote client")
        << QStringLiteral("podman") << QByteArray("Error: unknown flag: --runtime")
        << QStringLiteral("remote client cannot choose a runtime");
}

void tst_ContainerArguments::gvisorFailuresAreExplainedWithTheFix()
{
    QFETCH(QString, engine);
    QFETCH(QByteArray, standardError);
    QFETCH(QString, fix);
    const QString explanation = makeRuntime(engine)->explainFailure(standardError);
    QVERIFY2(explanation.contains(QLatin1String("never run with less")), qPrintable(explanation));
    QVERIFY2(explanation.contains(fix), qPrintable(explanation));
    QVERIFY2(explanation.contains(QLatin1String("--isolation standard")), qPrintable(explanation));
    // The engine's own words come along.
    QVERIFY2(explanation.contains(QString::fromUtf8(standardError.left(20))),
             qPrintable(explanation));
}

void tst_ContainerArguments::dockersGvisorRegistrationIsChecked_data()
{
    QTest::addColumn<QByteArray>("runtimes"); // docker info --format '{{json .Runtimes}}'
    QTest::addColumn<QString>("problem");     // empty: ready
    const QByteArray runc = R"("runc":{"path":"runc"})";
    QTest::newRow("registered") << (R"({"code-sandbox-gvisor":{"path":"/usr/bin/runsc",)"
                                    R"("runtimeArgs":["--network=none","--host-uds=all",)"
                                    R"("--oci-seccomp"]},)" +
                                    runc + "}")
                                << QString();
    QTest::newRow("not registered")
        << ("{" + runc + "}") << QStringLiteral("not registered with Docker");
    QTest::newRow("without the profile")
        << (R"({"code-sandbox-gvisor":{"path":"/usr/bin/runsc",)"
            R"("runtimeArgs":["--network=none","--host-uds=all"]},)" +
            runc + "}")
        << QStringLiteral("lacks --oci-seccomp");
    QTest::newRow("not runsc") << (R"({"code-sandbox-gvisor":{"path":"/usr/bin/runc"},)" + runc +
                                   "}")
                               << QStringLiteral("not gVisor's runsc");
}

void tst_ContainerArguments::dockersGvisorRegistrationIsChecked()
{
    QFETCH(QByteArray, runtimes);
    QFETCH(QString, problem);
    const QString said = DockerRuntime().gvisorUnreadiness(runtimes);
    if (problem.isEmpty())
        QCOMPARE(said, QString());
    else
        QVERIFY2(said.contains(problem), qPrintable(said));
}

void tst_ContainerArguments::labels()
{
    QFETCH(QString, engine);
    const ContainerSpec spec = sampleSpec();
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    QStringList expected;
    for (auto it = spec.labels.cbegin(); it != spec.labels.cend(); ++it)
        expected << it.key() + QLatin1Char('=') + it.value();
    QStringList actual = valuesOf(args, QStringLiteral("--label"));
    actual.sort();
    expected.sort();
    QCOMPARE(actual, expected);
}

void tst_ContainerArguments::environment()
{
    QFETCH(QString, engine);
    // Values the engine will read from its own environment; they must never reach argv.
    const QByteArray secretName("CSM_TEST_PASS_THROUGH_TOKEN");
    const QByteArray secretValue("s3cr3t-value-4f9a1c");
    const QByteArray otherName("CSM_TEST_PASS_THROUGH_OTHER");
    const QByteArray otherValue("other-secret-77b2");
    ContainerSpec spec = sampleSpec();
    spec.secretVariables = {{QString::fromLatin1(secretName), secretValue},
                            {QString::fromLatin1(otherName), otherValue}};
    const auto runtime = makeRuntime(engine);
    const QStringList args = runtime->runArguments(spec);

    const QStringList variables = valuesOf(args, QStringLiteral("-e"));
    // Pass-through variables by bare name only.
    QVERIFY(variables.contains(QString::fromLatin1(secretName)));
    QVERIFY(variables.contains(QString::fromLatin1(otherName)));
    // Non-secret ones as NAME=value.
    QVERIFY(variables.contains(QStringLiteral("HOME=/tmp")));
    QVERIFY(variables.contains(QStringLiteral("LANG=C.UTF-8")));
    QCOMPARE(variables.size(), 4);

    for (const QString& arg : args) {
        QVERIFY2(!arg.contains(QString::fromLatin1(secretValue)), qPrintable(arg));
        QVERIFY2(!arg.contains(QString::fromLatin1(otherValue)), qPrintable(arg));
        QVERIFY2(!arg.startsWith(QString::fromLatin1(secretName) + QLatin1Char('=')),
                 qPrintable(arg));
        QVERIFY2(!arg.startsWith(QString::fromLatin1(otherName) + QLatin1Char('=')),
                 qPrintable(arg));
    }
    QVERIFY(args.lastIndexOf(QStringLiteral("-e")) < args.indexOf(spec.image));

    // The values travel in the engine client's environment instead, which the engine copies
    // into the container for each bare -e NAME.
    const std::unique_ptr<QProcess> process(runtime->newRunProcess(spec, nullptr));
    QCOMPARE(process->arguments(), args);
    const QProcessEnvironment environment = process->processEnvironment();
    QCOMPARE(environment.value(QString::fromLatin1(secretName)).toUtf8(), secretValue);
    QCOMPARE(environment.value(QString::fromLatin1(otherName)).toUtf8(), otherValue);
    // The rest of the server's environment (PATH, the engine's own settings) is kept.
    QCOMPARE(environment.value(QStringLiteral("PATH")), qEnvironmentVariable("PATH"));
}

void tst_ContainerArguments::imageAndCommandLast()
{
    QFETCH(QString, engine);
    const ContainerSpec spec = sampleSpec();
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    // The launcher gets the limits to check, the output cap, then runs the interpreter after
    // "--". Limits the engine does not enforce make it refuse, unless the policy allows them.
    const QStringList tail = QStringList{spec.image} + launcherOptions(spec) +
                             QStringList{QStringLiteral("--")} + spec.command;
    QVERIFY(args.size() > tail.size());
    QCOMPARE(args.mid(args.size() - tail.size()), tail);
    ContainerSpec allowing = spec;
    allowing.policy.allowUnenforcedLimits = true;
    const QStringList allowed = makeRuntime(engine)->runArguments(allowing);
    QCOMPARE(allowed.at(allowed.indexOf(QStringLiteral("--unenforced")) + 1),
             QStringLiteral("allow"));
    // The image appears once, exactly where the engine expects it.
    QCOMPARE(args.count(spec.image), 1);

    ContainerSpec js = spec;
    js.image = QStringLiteral("localhost/code-sandbox-js:latest");
    js.command = {QStringLiteral("node"), QStringLiteral("-")};
    const QStringList jsArgs = makeRuntime(engine)->runArguments(js);
    QCOMPARE(jsArgs.mid(jsArgs.size() - 3),
             (QStringList{QStringLiteral("--"), js.command.at(0), js.command.at(1)}));
}

void tst_ContainerArguments::launcherIsTheReadOnlyEntrypoint_data()
{
    QTest::addColumn<QString>("engine");
    QTest::newRow("podman") << QStringLiteral("podman");
    QTest::newRow("docker") << QStringLiteral("docker");
}

void tst_ContainerArguments::launcherIsTheReadOnlyEntrypoint()
{
    QFETCH(QString, engine);
    const ContainerSpec spec = sampleSpec();
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    // Whatever ENTRYPOINT the image declares, the launcher is what runs, as PID 1...
    QCOMPARE(valueOf(args, QStringLiteral("--entrypoint")),
             QStringLiteral("/.code-sandbox/launch"));
    // ...mounted read-only from the host, so neither the image nor the program can replace it.
    QCOMPARE(valueOf(args, QStringLiteral("--mount")),
             QStringLiteral("type=bind,source=/opt/code sandbox/libexec/csm-launch,"
                            "target=/.code-sandbox/launch,ro=true"));
    QVERIFY(args.indexOf(QStringLiteral("--entrypoint")) < args.indexOf(spec.image));
    // The engine's own init would take PID 1 from the launcher.
    QVERIFY(!args.contains(QStringLiteral("--init")));
}

// A remote engine cannot see the host's files: the launcher comes from the engine's own volume,
// read-only, and no host path is mounted.
void tst_ContainerArguments::remoteEngineGetsTheLauncherFromItsVolume()
{
    QFETCH(QString, engine);
    ContainerSpec spec = sampleSpec();
    spec.files.volume = QStringLiteral("code-sandbox-files-0123456789ab");
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    QCOMPARE(valueOf(args, QStringLiteral("--entrypoint")),
             QStringLiteral("/.code-sandbox/files/launch"));
    QCOMPARE(valuesOf(args, QStringLiteral("--mount")),
             QStringList{QStringLiteral("type=volume,source=code-sandbox-files-0123456789ab,"
                                        "target=/.code-sandbox/files,ro=true")});
    QVERIFY2(!args.join(u' ').contains(QLatin1String("type=bind")), qPrintable(args.join(u' ')));
}

void tst_ContainerArguments::pooledContainerOnARemoteEngineStaysAttached()
{
    QFETCH(QString, engine);
    ContainerSpec spec = sampleSpec();
    spec.files.volume = QStringLiteral("code-sandbox-files-0123456789ab");
    spec.pooled = true;
    spec.interpreterSignalsReady = true;
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    // Its streams are the only way in: attached, not detached, and no folder is mounted.
    QVERIFY(args.contains(QStringLiteral("-i")));
    QVERIFY(!args.contains(QStringLiteral("--detach")));
    QVERIFY(!args.join(u' ').contains(QLatin1String("/.code-sandbox/io")));
    // The launcher waits for its request on stdin (--listen -) with the interpreter started.
    const QStringList launcher = args.mid(args.indexOf(spec.image) + 1);
    QCOMPARE(valueOf(launcher, QStringLiteral("--listen")), QStringLiteral("-"));
    QCOMPARE(valueOf(launcher, QStringLiteral("--ready-fd")), QStringLiteral("3"));
}

void tst_ContainerArguments::endpointReachesTheCliThroughItsOwnVariables_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("address");
    QTest::addColumn<QString>("set");
    QTest::addColumn<QString>("cleared");
    QTest::newRow("docker url") << QStringLiteral("docker") << QStringLiteral("ssh://me@build")
                                << QStringLiteral("DOCKER_HOST")
                                << QStringLiteral("DOCKER_CONTEXT");
    QTest::newRow("docker context")
        << QStringLiteral("docker") << QStringLiteral("build") << QStringLiteral("DOCKER_CONTEXT")
        << QStringLiteral("DOCKER_HOST");
    QTest::newRow("podman url") << QStringLiteral("podman")
                                << QStringLiteral("unix:///run/user/1000/podman/podman.sock")
                                << QStringLiteral("CONTAINER_HOST")
                                << QStringLiteral("CONTAINER_CONNECTION");
    QTest::newRow("podman connection")
        << QStringLiteral("podman") << QStringLiteral("build")
        << QStringLiteral("CONTAINER_CONNECTION") << QStringLiteral("CONTAINER_HOST");
}

// The address goes where the CLI reads it, and a variable of the user's that would win over it
// is taken away; no argument changes (scripts the CLI runs, build-images, read the same).
void tst_ContainerArguments::endpointReachesTheCliThroughItsOwnVariables()
{
    QFETCH(QString, engine);
    QFETCH(QString, address);
    QFETCH(QString, set);
    QFETCH(QString, cleared);
    qputenv(cleared.toUtf8().constData(), "from-the-user");
    const auto runtime = makeRuntime(engine);
    const QStringList before = runtime->runArguments(sampleSpec());
    runtime->setEndpoint(address);
    QCOMPARE(runtime->endpoint(), address);
    QCOMPARE(runtime->processEnvironment().value(set), address);
    QVERIFY(!runtime->processEnvironment().contains(cleared));
    QCOMPARE(runtime->runArguments(sampleSpec()), before);
    // Back to the CLI's own default: the user's variables again.
    runtime->setEndpoint({});
    QCOMPARE(runtime->processEnvironment().value(cleared), QStringLiteral("from-the-user"));
    qunsetenv(cleared.toUtf8().constData());
}

void tst_ContainerArguments::remoteUrls_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("remote");
    QTest::newRow("docker's socket") << QStringLiteral("unix:///var/run/docker.sock") << false;
    QTest::newRow("a rootless socket")
        << QStringLiteral("unix:///run/user/1000/podman/podman.sock") << false;
    QTest::newRow("Docker Desktop's VM")
        << QStringLiteral("unix:///home/me/.docker/desktop/docker.sock") << true;
    QTest::newRow("Podman machine")
        << QStringLiteral("unix:///run/user/1000/podman/machine/qemu/podman.sock") << true;
    QTest::newRow("tcp") << QStringLiteral("tcp://127.0.0.1:2376") << true;
    QTest::newRow("ssh") << QStringLiteral("ssh://me@build") << true;
    QTest::newRow("npipe") << QStringLiteral("npipe:////./pipe/docker_engine") << true;
}

void tst_ContainerArguments::remoteUrls()
{
    QFETCH(QString, url);
    QFETCH(bool, remote);
    // By transport, not by machine: ssh:// to this very machine is still remote (its containers
    // are reached through the engine only, which always works).
    QCOMPARE(EngineAddress::isRemoteUrl(url), remote);
}

void tst_ContainerArguments::sharedFoldersAreBindMounts()
{
    QFETCH(QString, engine);
    ContainerSpec spec = sampleSpec();
    QVERIFY(!makeRuntime(engine)->runArguments(spec).join(u' ').contains(QLatin1String("/data")));
    spec.policy.sharedFolders = {
        {QStringLiteral("/home/me/sales data"), QStringLiteral("sales"), false},
        {QStringLiteral("/home/me/out"), QStringLiteral("out"), true}};
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    const QStringList mounts = valuesOf(args, QStringLiteral("--mount"));
    // Read-only unless the user said writable; one argument each, so a space stays in the path.
    // Podman mounts them nosuid,nodev too; Docker's --mount has no words for it (its sandboxes
    // run with no-new-privileges, and the seccomp profile refuses set-id bits).
    const QString hardened =
        engine == QLatin1String("podman") ? QStringLiteral(",nosuid,nodev") : QString();
    QVERIFY2(mounts.contains(
                 QStringLiteral("type=bind,source=/home/me/sales data,target=/data/sales,ro=true") +
                 hardened),
             qPrintable(mounts.join(u'\n')));
    QVERIFY2(mounts.contains(QStringLiteral("type=bind,source=/home/me/out,target=/data/out") +
                             hardened),
             qPrintable(mounts.join(u'\n')));
    QVERIFY(args.lastIndexOf(QStringLiteral("--mount")) < args.indexOf(spec.image));
    // A pooled container is started from the same policy: the same mounts.
    spec.pooled = true;
    spec.ioDirectory = QStringLiteral("/run/io");
    const QStringList pooled =
        valuesOf(makeRuntime(engine)->runArguments(spec), QStringLiteral("--mount"));
    for (const QString& mount : mounts)
        QVERIFY2(pooled.contains(mount), qPrintable(mount));
}

void tst_ContainerArguments::specHasNoCodeToLeak()
{
    // SandboxRun writes the program to the container's stdin; the spec that becomes argv has no
    // field that could carry it.
    QVERIFY(!HasCodeMember<ContainerSpec>);
    QVERIFY(!HasSourceMember<ContainerSpec>);
    QVERIFY(!HasProgramMember<ContainerSpec>);
}

void tst_ContainerArguments::names_data()
{
    addEngineRows();
}

void tst_ContainerArguments::names()
{
    QFETCH(QString, engine);
    QCOMPARE(makeRuntime(engine)->name(), engine);
    QCOMPARE(makeRuntime(engine)->program(), engine);
    const PodmanRuntime podman(QStringLiteral("/opt/bin/podman"));
    QCOMPARE(podman.program(), QStringLiteral("/opt/bin/podman"));
    const DockerRuntime docker(QStringLiteral("/opt/bin/docker"));
    QCOMPARE(docker.program(), QStringLiteral("/opt/bin/docker"));
}

void tst_ContainerArguments::forceRemoveArguments_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QStringList>("expected");
    const QString name = QStringLiteral("code-sandbox-abc123-7");
    // podman: --time 0 skips the 10 s SIGTERM grace period; --ignore: gone already is fine.
    QTest::newRow("podman") << QStringLiteral("podman")
                            << QStringList{QStringLiteral("rm"),       QStringLiteral("--force"),
                                           QStringLiteral("--time"),   QStringLiteral("0"),
                                           QStringLiteral("--ignore"), name};
    QTest::newRow("docker") << QStringLiteral("docker")
                            << QStringList{QStringLiteral("rm"), QStringLiteral("--force"), name};
}

void tst_ContainerArguments::forceRemoveArguments()
{
    QFETCH(QString, engine);
    QFETCH(QStringList, expected);
    QCOMPARE(makeRuntime(engine)->forceRemoveArguments(QStringLiteral("code-sandbox-abc123-7")),
             expected);
}

void tst_ContainerArguments::imageCheckArguments_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QStringList>("expected");
    const QString image = QStringLiteral("localhost/code-sandbox-python:latest");
    QTest::newRow("podman") << QStringLiteral("podman")
                            << QStringList{QStringLiteral("image"), QStringLiteral("exists"),
                                           image};
    QTest::newRow("docker") << QStringLiteral("docker")
                            << QStringList{QStringLiteral("image"), QStringLiteral("inspect"),
                                           QStringLiteral("--format"), QStringLiteral("{{.Id}}"),
                                           image};
}

void tst_ContainerArguments::imageCheckArguments()
{
    QFETCH(QString, engine);
    QFETCH(QStringList, expected);
    QCOMPARE(makeRuntime(engine)->imageCheckArguments(
                 QStringLiteral("localhost/code-sandbox-python:latest")),
             expected);
}

void tst_ContainerArguments::interpretImageCheck_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("standardError");
    QTest::addColumn<ImageCheck::Status>("status");
    QTest::addColumn<QString>("detail");

    using S = ImageCheck::Status;
    const QString podman = QStringLiteral("podman");
    const QString docker = QStringLiteral("docker");

    QTest::newRow("podman present") << podman << 0 << QByteArray() << S::Present << QString();
    QTest::newRow("podman missing") << podman << 1 << QByteArray() << S::Missing << QString();
    QTest::newRow("podman missing with text")
        << podman << 1 << QByteArray("Error: image not known\n") << S::Missing << QString();
    QTest::newRow("podman 125 storage error")
        << podman << 125
        << QByteArray("Error: creating runtime static files directory: mkdir "
                      "/run/user/1000/libpod: permission denied\n")
        << S::EngineUnavailable
        << QStringLiteral("Error: creating runtime static files directory: mkdir "
                          "/run/user/1000/libpod: permission denied");
    QTest::newRow("podman 125 without text")
        << podman << 125 << QByteArray() << S::EngineUnavailable << QString();
    QTest::newRow("podman crashed")
        << podman << -1 << QByteArray("  \n") << S::EngineUnavailable << QString();

    QTest::newRow("docker present") << docker << 0 << QByteArray() << S::Present << QString();
    QTest::newRow("docker no such image")
        << docker << 1 << QByteArray("Error: No such image: x\n") << S::Missing << QString();
    QTest::newRow("docker daemon no such image")
        << docker << 1
        << QByteArray("Error response from daemon: No such image: code-sandbox-python:latest\n")
        << S::Missing << QString();
    QTest::newRow("docker no such object")
        << docker << 1 << QByteArray("Error: No such object: x\n") << S::Missing << QString();
    QTest::newRow("docker daemon down")
        << docker << 1
        << QByteArray("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is "
                      "the docker daemon running?\n")
        << S::EngineUnavailable
        << QStringLiteral("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is "
                          "the docker daemon running?");
    QTest::newRow("docker permission denied")
        << docker << 1
        << QByteArray("permission denied while trying to connect to the Docker daemon socket at "
                      "unix:///var/run/docker.sock: Get \"http://%2Fvar%2Frun%2Fdocker.sock/v1.24/"
                      "images/x/json\": dial unix /var/run/docker.sock: connect: permission "
                      "denied\n")
        << S::EngineUnavailable
        << QStringLiteral("permission denied while trying to connect to the Docker daemon socket "
                          "at unix:///var/run/docker.sock: Get \"http://%2Fvar%2Frun%2Fdocker.sock/"
                          "v1.24/images/x/json\": dial unix /var/run/docker.sock: connect: "
                          "permission denied");
    QTest::newRow("docker exit 1 empty stderr")
        << docker << 1 << QByteArray() << S::EngineUnavailable << QString();
}

void tst_ContainerArguments::interpretImageCheck()
{
    QFETCH(QString, engine);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, standardError);
    QFETCH(ImageCheck::Status, status);
    QFETCH(QString, detail);

    const ImageCheck check = makeRuntime(engine)->interpretImageCheck(exitCode, standardError);
    QCOMPARE(check.status, status);
    QCOMPARE(check.detail, detail);
}

void tst_ContainerArguments::engineWarnings_data()
{
    QTest::addColumn<QByteArray>("standardError");
    QTest::addColumn<QStringList>("warnings");
    // Rootless Podman on cgroup v1, as it prints it for every run that sets a limit.
    QTest::newRow("podman, logrus style")
        << QByteArray("time=\"2026-12-03T14:20:01Z\" level=warning msg=\"Resource limits are not "
                      "supported and ignored on cgroups V1 rootless systems\"\n")
        << QStringList{QStringLiteral(
               "Resource limits are not supported and ignored on cgroups V1 rootless systems")};
    QTest::newRow("quotes inside, and a repeat")
        << QByteArray("level=warning msg=\"\\\"/\\\" is not a shared mount\"\n"
                      "level=warning msg=\"\\\"/\\\" is not a shared mount\"\n")
        << QStringList{QStringLiteral("\"/\" is not a shared mount")};
    QTest::newRow("docker style") << QByteArray("WARNING: Your kernel does not support swap.\n")
                                  << QStringList{
                                         QStringLiteral("Your kernel does not support swap.")};
    QTest::newRow("debug lines are not warnings")
        << QByteArray("time=\"x\" level=debug msg=\"detail\"\n") << QStringList();
    QTest::newRow("nothing") << QByteArray("\n  \n") << QStringList();
}

void tst_ContainerArguments::engineWarnings()
{
    QFETCH(QByteArray, standardError);
    QFETCH(QStringList, warnings);
    QCOMPARE(PodmanRuntime().engineWarnings(standardError), warnings);
}

void tst_ContainerArguments::setUpNotice_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("warning");
    QTest::addColumn<bool>("aboutTheSetUp");
    // Podman 5 on a cgroup v1 machine (Debian 13's Podman on Debian 12's kernel set-up), before
    // every command it runs.
    const QString cgroupsV1 = QStringLiteral(
        "Using cgroups-v1 which is deprecated in favor of cgroups-v2 with Podman v5 and will be "
        "removed in a future version. Set environment variable `PODMAN_IGNORE_CGROUPSV1_WARNING` "
        "to hide this warning.");
    QTest::newRow("podman 5, cgroup v1") << QStringLiteral("podman") << cgroupsV1 << true;
    // About this sandbox: the model should know its limits did not hold.
    QTest::newRow("podman, limits ignored")
        << QStringLiteral("podman")
        << QStringLiteral(
               "Resource limits are not supported and ignored on cgroups V1 rootless systems")
        << false;
    QTest::newRow("docker") << QStringLiteral("docker") << cgroupsV1 << false;
}

void tst_ContainerArguments::setUpNotice()
{
    QFETCH(QString, engine);
    QFETCH(QString, warning);
    QFETCH(bool, aboutTheSetUp);
    const QString notice = makeRuntime(engine)->setUpNotice(warning);
    QCOMPARE(!notice.isEmpty(), aboutTheSetUp);
    if (aboutTheSetUp)
        QVERIFY(notice.contains(QLatin1String("systemd.unified_cgroup_hierarchy=1")));
}

void tst_ContainerArguments::explainFailure_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QByteArray>("standardError");
    // What the explanation must name (the fix); none: not explained.
    QTest::addColumn<QStringList>("mentions");
    const QStringList tunFix{QStringLiteral("sudo chmod 0666 /dev/net/tun"),
                             QStringLiteral("podman system migrate"),
                             QStringLiteral("--network none")};
    // What rootless Podman prints when /dev/net/tun is 0600, and on the runs after that.
    QTest::newRow("podman, no tun")
        << QStringLiteral("podman")
        << QByteArray("Error: /usr/bin/slirp4netns failed: \"open(\\\"/dev/net/tun\\\"): "
                      "Permission denied\\nWARNING: Support for sandboxing is experimental\\n"
                      "child failed(1)\\n\"")
        << tunFix;
    QTest::newRow("podman, after a failure")
        << QStringLiteral("podman")
        << QByteArray("Error: failed to mount runtime directory for rootless netns: no such file "
                      "or directory")
        << tunFix;
    // Debian 13's Podman (crun) on a machine with hybrid cgroups.
    QTest::newRow("podman 5, crun on hybrid cgroups")
        << QStringLiteral("podman")
        << QByteArray("Error: OCI runtime error: crun: cgroups in hybrid mode not supported, drop "
                      "all controllers from cgroupv2")
        << QStringList{QStringLiteral("sudo apt-get install runc"),
                       QStringLiteral("runtime = \"runc\""),
                       QStringLiteral("systemd.unified_cgroup_hierarchy=1")};
    QTest::newRow("podman, missing image")
        << QStringLiteral("podman") << QByteArray("Error: localhost/x: image not known")
        << QStringList();
    QTest::newRow("docker") << QStringLiteral("docker") << QByteArray("open /dev/net/tun")
                            << QStringList();
}

void tst_ContainerArguments::explainFailure()
{
    QFETCH(QString, engine);
    QFETCH(QByteArray, standardError);
    QFETCH(QStringList, mentions);
    const QString explanation = makeRuntime(engine)->explainFailure(standardError);
    QCOMPARE(!explanation.isEmpty(), !mentions.isEmpty());
    for (const QString& mention : mentions)
        QVERIFY2(explanation.contains(mention), qPrintable(explanation));
}

void tst_ContainerArguments::localImageReference_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("image");
    QTest::addColumn<QString>("expected");

    const QList<std::tuple<const char*, QString, QString>> podmanRows{
        {"unqualified default", QStringLiteral("code-sandbox-python:latest"),
         QStringLiteral("localhost/code-sandbox-python:latest")},
        {"unqualified without tag", QStringLiteral("code-sandbox-js"),
         QStringLiteral("localhost/code-sandbox-js")},
        {"already localhost", QStringLiteral("localhost/x:1"), QStringLiteral("localhost/x:1")},
        {"docker.io", QStringLiteral("docker.io/library/python:3"),
         QStringLiteral("docker.io/library/python:3")},
        {"quay.io", QStringLiteral("quay.io/a/b"), QStringLiteral("quay.io/a/b")},
        {"registry with port", QStringLiteral("registry:5000/img"),
         QStringLiteral("registry:5000/img")},
        {"user namespace", QStringLiteral("myuser/img:tag"),
         QStringLiteral("localhost/myuser/img:tag")},
    };
    for (const auto& [row, image, expected] : podmanRows)
        QTest::addRow("podman %s", row) << QStringLiteral("podman") << image << expected;

    // docker keeps local images under their plain names.
    for (const auto& [row, image, expected] : podmanRows)
        QTest::addRow("docker %s", row) << QStringLiteral("docker") << image << image;
}

void tst_ContainerArguments::localImageReference()
{
    QFETCH(QString, engine);
    QFETCH(QString, image);
    QFETCH(QString, expected);
    QCOMPARE(makeRuntime(engine)->localImageReference(image), expected);
}

void tst_ContainerArguments::defaultImage_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<Language>("language");
    QTest::addColumn<QString>("expected");
    QTest::newRow("podman python") << QStringLiteral("podman") << Language::Python
                                   << QStringLiteral("localhost/code-sandbox-python:latest");
    QTest::newRow("podman javascript") << QStringLiteral("podman") << Language::JavaScript
                                       << QStringLiteral("localhost/code-sandbox-js:latest");
    QTest::newRow("docker python") << QStringLiteral("docker") << Language::Python
                                   << QStringLiteral("code-sandbox-python:latest");
    QTest::newRow("docker javascript") << QStringLiteral("docker") << Language::JavaScript
                                       << QStringLiteral("code-sandbox-js:latest");
}

void tst_ContainerArguments::defaultImage()
{
    QFETCH(QString, engine);
    QFETCH(Language, language);
    QFETCH(QString, expected);
    QCOMPARE(makeRuntime(engine)->defaultImage(language), expected);
}

void tst_ContainerArguments::hintsForPeople_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QString>("install");
    QTest::addColumn<QString>("unavailableFix");
    QTest::addColumn<bool>("hasUnavailableHint");
    QTest::addColumn<bool>("hasBuildLeftovers");
    // Debian names docker's package docker.io; only docker has a daemon to start, and only
    // podman keeps a cancelled build's working container.
    QTest::newRow("podman") << QStringLiteral("podman")
                            << QStringLiteral("sudo apt-get install podman")
                            << QStringLiteral("podman info") << false << true;
    QTest::newRow("docker") << QStringLiteral("docker")
                            << QStringLiteral("sudo apt-get install docker.io")
                            << QStringLiteral("sudo systemctl start docker") << true << false;
}

void tst_ContainerArguments::hintsForPeople()
{
    QFETCH(QString, engine);
    QFETCH(QString, install);
    QFETCH(QString, unavailableFix);
    QFETCH(bool, hasUnavailableHint);
    QFETCH(bool, hasBuildLeftovers);
    const auto runtime = makeRuntime(engine);
    QCOMPARE(runtime->installCommand(), install);
    QCOMPARE(runtime->unavailableFixCommand(), unavailableFix);
    QCOMPARE(!runtime->unavailableHint().isEmpty(), hasUnavailableHint);
    if (hasUnavailableHint)
        QVERIFY(runtime->unavailableHint().contains(unavailableFix));
    QCOMPARE(!runtime->cancelledBuildLeftovers().isEmpty(), hasBuildLeftovers);
}

void tst_ContainerArguments::factoryCreate_data()
{
    QTest::addColumn<QString>("preference");
    QTest::addColumn<bool>("created");
    QTest::addColumn<QString>("name"); // empty: whichever is installed
    QTest::newRow("podman") << QStringLiteral("podman") << true << QStringLiteral("podman");
    QTest::newRow("docker") << QStringLiteral("docker") << true << QStringLiteral("docker");
    QTest::newRow("auto") << QStringLiteral("auto") << true << QString();
    QTest::newRow("empty is auto") << QString() << true << QString();
    QTest::newRow("bogus") << QStringLiteral("bogus") << false << QString();
    QTest::newRow("lxc") << QStringLiteral("lxc") << false << QString();
}

void tst_ContainerArguments::factoryCreate()
{
    QFETCH(QString, preference);
    QFETCH(bool, created);
    QFETCH(QString, name);
    const std::unique_ptr<ContainerRuntime> runtime = RuntimeFactory::create(preference);
    QCOMPARE(runtime != nullptr, created);
    if (!runtime)
        return;
    if (!name.isEmpty()) {
        QCOMPARE(runtime->name(), name);
        QCOMPARE(runtime->program(), name);
    } else {
        QVERIFY(runtime->name() == QLatin1String("podman") ||
                runtime->name() == QLatin1String("docker"));
    }
}

void tst_ContainerArguments::isKnownEngine_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("known");
    QTest::newRow("podman") << QStringLiteral("podman") << true;
    QTest::newRow("docker") << QStringLiteral("docker") << true;
    QTest::newRow("auto") << QStringLiteral("auto") << true;
    QTest::newRow("empty") << QString() << true;
    QTest::newRow("bogus") << QStringLiteral("bogus") << false;
    QTest::newRow("prefix") << QStringLiteral("pod") << false;
    QTest::newRow("suffix") << QStringLiteral("docker-compose") << false;
}

void tst_ContainerArguments::isKnownEngine()
{
    QFETCH(QString, name);
    QFETCH(bool, known);
    QCOMPARE(RuntimeFactory::isKnownEngine(name), known);
}

void tst_ContainerArguments::pooledContainerRunsDetachedAndListens_data()
{
    launcherIsTheReadOnlyEntrypoint_data();
}

void tst_ContainerArguments::pooledContainerRunsDetachedAndListens()
{
    QFETCH(QString, engine);
    ContainerSpec spec = sampleSpec();
    spec.pooled = true;
    spec.ioDirectory = QStringLiteral("/tmp/code-sandbox-pool-x/code-sandbox-abc123-7");
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    // No client stays attached to a waiting container: detached, not interactive.
    QVERIFY(args.contains(QStringLiteral("--detach")));
    QVERIFY(!args.contains(QStringLiteral("-i")));
    QVERIFY(args.contains(QStringLiteral("--rm")));
    QVERIFY(args.contains(QStringLiteral("type=bind,source=/tmp/code-sandbox-pool-x/"
                                         "code-sandbox-abc123-7,target=/.code-sandbox/io")));
    // The launcher listens in the mounted folder, then runs the interpreter as before.
    const QStringList tail = QStringList{spec.image, QStringLiteral("--listen"),
                                         QStringLiteral("/.code-sandbox/io/sock")} +
                             launcherOptions(spec) + QStringList{QStringLiteral("--")} +
                             spec.command;
    QCOMPARE(args.mid(args.size() - tail.size()), tail);
    // Everything else (limits, hardening) is the same as for a call's own container.
    const QStringList cold = makeRuntime(engine)->runArguments(sampleSpec());
    for (const QString& flag :
         {QStringLiteral("--read-only"), QStringLiteral("--cap-drop"), QStringLiteral("--memory"),
          QStringLiteral("--pids-limit"), QStringLiteral("--user"), QStringLiteral("--network")}) {
        QCOMPARE(valueOf(args, flag), valueOf(cold, flag));
    }
}

// Proxy mode: no network, the endpoint's folder read-only, the relay on the loopback before the
// interpreter, and the variables that lead programs (and Node's fetch) to it.
void tst_ContainerArguments::egressProxyModeMountsTheEndpointAndSetsTheProxy()
{
    QFETCH(QString, engine);
    ContainerSpec spec = sampleSpec();
    spec.egressDirectory = QStringLiteral("/tmp/code-sandbox-egress-x/code-sandbox-abc123-7");
    // Even a policy that says bridge gets no network of its own beside the proxy.
    spec.policy.network = QStringLiteral("bridge");
    const QStringList args = makeRuntime(engine)->runArguments(spec);
    QCOMPARE(valueOf(args, QStringLiteral("--network")), QStringLiteral("none"));
    QVERIFY(valuesOf(args, QStringLiteral("--mount"))
                .contains(QStringLiteral("type=bind,source=/tmp/code-sandbox-egress-x/"
                                         "code-sandbox-abc123-7,target=/.code-sandbox/egress,"
                                         "ro=true")));
    const QStringList variables = valuesOf(args, QStringLiteral("-e"));
    for (const QString& name : {QStringLiteral("HTTP_PROXY"), QStringLiteral("HTTPS_PROXY"),
                                QStringLiteral("http_proxy"), QStringLiteral("https_proxy")})
        QVERIFY2(variables.contains(name + QStringLiteral("=http://127.0.0.1:3128")),
                 qPrintable(variables.join(u' ')));
    QVERIFY(variables.contains(QStringLiteral("NO_PROXY=localhost,127.0.0.1,::1")));
    QVERIFY(variables.contains(
        QStringLiteral("NODE_OPTIONS=--require /.code-sandbox/egress/fetch-proxy.cjs")));
    QVERIFY(variables.contains(QStringLiteral("HOME=/tmp")));
    // The launcher's option comes before the program's command.
    const qsizetype relay = args.indexOf(QStringLiteral("--egress-relay"));
    QVERIFY(relay > args.indexOf(spec.image));
    QVERIFY(relay < args.indexOf(QStringLiteral("--")));
    QCOMPARE(args.at(relay + 1), QStringLiteral("3128:/.code-sandbox/egress/proxy"));
    // Without the endpoint: none of it.
    const QStringList plain = makeRuntime(engine)->runArguments(sampleSpec());
    QVERIFY(!plain.contains(QStringLiteral("--egress-relay")));
    QVERIFY(!plain.join(u' ').contains(QLatin1String("PROXY")));
}

// Proxy mode on a remote engine, which no host folder reaches: no egress mount, the relay
// connects to the carrier's abstract socket, Node's preload comes from the files volume, and
// the carrier is the launcher in that volume, run through `exec -i`.
void tst_ContainerArguments::egressProxyModeOnARemoteEngineIsCarried()
{
    QFETCH(QString, engine);
    ContainerSpec spec = sampleSpec();
    spec.files.volume = QStringLiteral("code-sandbox-files-0123456789abcdef");
    spec.egressCarried = true;
    spec.policy.network = QStringLiteral("bridge");
    const auto runtime = makeRuntime(engine);
    const QStringList args = runtime->runArguments(spec);
    QCOMPARE(valueOf(args, QStringLiteral("--network")), QStringLiteral("none"));
    QVERIFY(!args.join(u' ').contains(QLatin1String("/.code-sandbox/egress")));
    const QStringList variables = valuesOf(args, QStringLiteral("-e"));
    QVERIFY(variables.contains(QStringLiteral("HTTPS_PROXY=http://127.0.0.1:3128")));
    QVERIFY(variables.contains(
        QStringLiteral("NODE_OPTIONS=--require /.code-sandbox/files/fetch-proxy.cjs")));
    const qsizetype relay = args.indexOf(QStringLiteral("--egress-relay"));
    QVERIFY(relay > args.indexOf(spec.image));
    QCOMPARE(args.at(relay + 1), QStringLiteral("3128:@code-sandbox-egress"));
    QCOMPARE(
        runtime->egressCarrierArguments(spec.name),
        (QStringList{QStringLiteral("exec"), QStringLiteral("-i"), QStringLiteral("--user"),
                     QStringLiteral("65533:65533"), spec.name,
                     QStringLiteral("/.code-sandbox/files/launch"),
                     QStringLiteral("--egress-carrier"), QStringLiteral("@code-sandbox-egress")}));
}

void tst_ContainerArguments::sessionDriverReportsOnItsReadyFdColdOrPooled_data()
{
    QTest::addColumn<bool>("pooled");
    QTest::newRow("cold") << false;
    QTest::newRow("pooled") << true;
}

void tst_ContainerArguments::sessionDriverReportsOnItsReadyFdColdOrPooled()
{
    QFETCH(bool, pooled);
    ContainerSpec spec = sampleSpec();
    spec.session = true;
    if (pooled) {
        spec.pooled = true;
        spec.ioDirectory = QStringLiteral("/tmp/code-sandbox-pool-x/code-sandbox-abc123-8");
        spec.interpreterSignalsReady = true;
    }
    const QStringList args = makeRuntime(QStringLiteral("podman"))->runArguments(spec);
    const QStringList launcher = args.mid(args.indexOf(spec.image) + 1);
    QVERIFY(launcher.contains(QStringLiteral("--session")));
    QCOMPARE(launcher.count(QStringLiteral("--ready-fd")), 1);
    QCOMPARE(valueOf(launcher, QStringLiteral("--ready-fd")), QStringLiteral("3"));
    QCOMPARE(launcher.contains(QStringLiteral("--listen")), pooled);
    QCOMPARE(args.contains(QStringLiteral("--detach")), pooled);
    QCOMPARE(args.contains(QStringLiteral("-i")), !pooled);
}

QTEST_GUILESS_MAIN(tst_ContainerArguments)
#include "tst_ContainerArguments.moc"
