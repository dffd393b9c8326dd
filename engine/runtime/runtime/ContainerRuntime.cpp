#include "runtime/ContainerRuntime.h"

#include "core/ByteSize.h"
#include "platform/EngineWorkingDirectory.h"
#include "runtime/ContainerLabels.h"
#include "runtime/ContainerSpec.h"
#include "runtime/SandboxPolicy.h"

#include <QProcess>
#include <QRegularExpression>

#include <algorithm>

namespace csm {

namespace {
// Exact, in the engines' own notation (512m, 1536k, or bytes): what the user asked for.
QString size(qint64 bytes)
{
    return ByteSize::format(bytes);
}

QString tmpfsMount(const QString& path, qint64 bytes)
{
    // mode=1777: the sandbox user is not root and must be able to write there. exec: programs
    // may build and run native code there (Docker would add noexec otherwise); nosuid and nodev
    // keep set-uid files and device nodes meaningless.
    return QStringLiteral("%1:rw,exec,nosuid,nodev,size=%2,mode=1777").arg(path, size(bytes));
}

QStringList labelOptions(const QMap<QString, QString>& labels)
{
    QStringList options;
    for (auto it = labels.cbegin(); it != labels.cend(); ++it)
        options << QStringLiteral("--label") << it.key() + QLatin1Char('=') + it.value();
    return options;
}

QString seccompOption(const QString& profilePath)
{
    return QStringLiteral("seccomp=") + profilePath;
}
} // namespace

ContainerRuntime::ContainerRuntime(QString program)
    : m_program(std::move(program))
{}

QProcess* ContainerRuntime::newProcess(const QStringList& arguments, QObject* parent) const
{
    auto* process = new QProcess(parent);
    process->setProgram(m_program);
    process->setArguments(arguments);
    process->setProcessEnvironment(m_environment);
    // Not the server's own working directory: the engine's helpers leave files in theirs
    // (conmon writes "oom" after an out-of-memory kill).
    process->setWorkingDirectory(EngineWorkingDirectory::path());
    return process;
}

void ContainerRuntime::startDetachedRemoval(const QString& container) const
{
    QProcess remover;
    remover.setProgram(m_program);
    remover.setArguments(forceRemoveArguments(container));
    remover.setProcessEnvironment(m_environment);
    // Not ours: a stdio server's stdout is its protocol, and the engine names what it removed.
    remover.setStandardOutputFile(QProcess::nullDevice());
    remover.setStandardErrorFile(QProcess::nullDevice());
    remover.startDetached();
}

void ContainerRuntime::setEndpoint(const QString& address)
{
    m_endpoint = address;
    m_environment = QProcessEnvironment::systemEnvironment();
    if (!address.isEmpty()) {
        const QMap<QString, QString> variables = endpointVariables(address);
        for (auto it = variables.cbegin(); it != variables.cend(); ++it) {
            // Empty: a variable that would otherwise win over the address.
            if (it.value().isEmpty())
                m_environment.remove(it.key());
            else
                m_environment.insert(it.key(), it.value());
        }
    }
    m_location.reset();
}

const EngineLocation& ContainerRuntime::location() const
{
    if (!m_location)
        m_location = locate(m_environment);
    return *m_location;
}

QProcess* ContainerRuntime::newRunProcess(const ContainerSpec& spec, QObject* parent) const
{
    QProcess* process = newProcess(runArguments(spec), parent);
    if (!spec.secretVariables.isEmpty()) {
        QProcessEnvironment environment = process->processEnvironment();
        for (const auto& [name, value] : spec.secretVariables)
            environment.insert(name, QString::fromUtf8(value));
        process->setProcessEnvironment(environment);
    }
    return process;
}

int ContainerRuntime::hostPidsLimit(const SandboxPolicy& policy)
{
    if (policy.isolation != Isolation::Gvisor)
        return policy.pidsLimit;
    // gVisor runs about four host threads for each of the program's processes (1,028 for 255
    // sleeping ones, measured): room for eight, and for gVisor's own, so that the sandbox's own
    // limit (RLIMIT_NPROC) is what a program meets, while the host still bounds the whole.
    return int(std::min<qint64>(qint64(policy.pidsLimit) * 8 + 512, 4'000'000));
}

QStringList ContainerRuntime::gvisorFlags()
{
    return {QStringLiteral("network=none"), QStringLiteral("host-uds=all"),
            QStringLiteral("oci-seccomp")};
}

QString ContainerRuntime::explainGvisorFailure(const QByteArray& standardError) const
{
    const QString said = QString::fromUtf8(standardError.trimmed().left(500));
    // The runtime's own words, or a CLI that takes no runtime (Podman's remote client).
    if (!said.contains(gvisorRuntimeName()) && !said.contains(QLatin1String("runsc")) &&
        !said.contains(QLatin1String("unknown flag: --runtime")))
        return {};
    return QStringLiteral("The sandbox could not start under gVisor (--isolation gvisor), and it "
                          "is never run with less. Fix: %1; or choose --isolation standard. "
                          "The engine said: %2")
        .arg(gvisorFix(), said);
}

QStringList ContainerRuntime::sandboxOwnHosts()
{
    return {QStringLiteral("localhost"), QStringLiteral("127.0.0.1"), QStringLiteral("::1")};
}

QMap<QString, QString> ContainerRuntime::egressEnvironment(const QString& preloadFolder)
{
    const QString proxy =
        QStringLiteral("http://127.0.0.1:%1").arg(ContainerSpec::kEgressProxyPort);
    const QString local = sandboxOwnHosts().join(QLatin1Char(','));
    // Both spellings: curl reads only the lower-case http_proxy, Go only the upper-case, and
    // Python, pip, requests and npm either. Node's fetch takes neither: the preload routes it.
    return {
        {QStringLiteral("HTTP_PROXY"), proxy},
        {QStringLiteral("HTTPS_PROXY"), proxy},
        {QStringLiteral("http_proxy"), proxy},
        {QStringLiteral("https_proxy"), proxy},
        {QStringLiteral("NO_PROXY"), local},
        {QStringLiteral("no_proxy"), local},
        {QStringLiteral("NODE_OPTIONS"),
         QStringLiteral("--require %1/%2")
             .arg(preloadFolder, QLatin1String(ContainerSpec::kEgressNodePreloadName))},
    };
}

QStringList ContainerRuntime::runArguments(const ContainerSpec& spec) const
{
    const SandboxPolicy& policy = spec.policy;
    // A pooled container on a local engine runs detached: no engine client stays attached while
    // it waits, and the server reaches its launcher through a socket in the bind-mounted folder
    // instead. On a remote engine it stays attached: its streams are the only way in.
    const bool throughFolder = spec.pooled && !spec.ioDirectory.isEmpty();
    const bool gvisor = policy.isolation == Isolation::Gvisor;
    QStringList args = isolationGlobalOptions(policy.isolation);
    args << QStringList{QStringLiteral("run"), QStringLiteral("--rm"),
                        throughFolder ? QStringLiteral("--detach") : QStringLiteral("-i"),
                        // Never reach for a registry: a missing image is reported, not pulled.
                        QStringLiteral("--pull"), QStringLiteral("never"), QStringLiteral("--name"),
                        spec.name};
    args << isolationRunOptions(policy.isolation);
    args << labelOptions(spec.labels);
    // Proxy mode: the proxy is the only way out, whatever the policy says.
    const QString network = spec.throughEgressProxy() ? QStringLiteral("none") : policy.network;
    args << QStringLiteral("--network") << network << QStringLiteral("--memory")
         << size(policy.memoryBytes) << QStringLiteral("--memory-swap") << size(policy.memoryBytes)
         << QStringLiteral("--cpus") << QString::number(policy.cpus)
         << QStringLiteral("--pids-limit") << QString::number(hostPidsLimit(policy))
         << QStringLiteral("--read-only") << QStringLiteral("--cap-drop") << QStringLiteral("ALL")
         << QStringLiteral("--security-opt")
         << QStringLiteral("no-new-privileges")
         // Ours, not the engine's default: Podman's lets a program create user namespaces.
         << QStringLiteral("--security-opt")
         << seccompOption(gvisor ? spec.files.gvisorSeccompProfile() : spec.files.seccompProfile)
         << QStringLiteral("--user") << policy.user << QStringLiteral("--tmpfs")
         << tmpfsMount(QStringLiteral("/tmp"), policy.tmpfsBytes) << QStringLiteral("--tmpfs")
         << tmpfsMount(policy.workdir, policy.tmpfsBytes) << QStringLiteral("--shm-size")
         << size(policy.tmpfsBytes) << QStringLiteral("--workdir")
         << policy.workdir
         // Output reaches us through the attached streams; an engine-side log copy of a program
         // that prints gigabytes would only fill the disk.
         << QStringLiteral("--log-driver") << QStringLiteral("none");
    if (gvisor) {
        // gVisor's kernel counts the program's processes and threads against this limit (it
        // applies to the sandbox's one user); the host's pids limit counts gVisor's own threads.
        args << QStringLiteral("--ulimit")
             << QStringLiteral("nproc=%1:%1").arg(QString::number(policy.pidsLimit));
    }
    args << engineSpecificRunOptions();
    // Our launcher is PID 1 whatever the image says: it reaps orphans, frames the program's
    // output and reports its exit status and an out-of-memory kill (see launcher/csm-launch.c).
    // A remote engine cannot see the host's copy: its own volume holds one (SandboxFilesVolume).
    if (spec.files.volume.isEmpty()) {
        args << QStringLiteral("--mount")
             << QStringLiteral("type=bind,source=%1,target=%2,ro=true")
                    .arg(spec.files.launcher, QLatin1String(ContainerSpec::kLauncherMountPoint))
             << QStringLiteral("--entrypoint") << QLatin1String(ContainerSpec::kLauncherMountPoint);
    } else {
        args << QStringLiteral("--mount")
             << QStringLiteral("type=volume,source=%1,target=%2,ro=true")
                    .arg(spec.files.volume, QLatin1String(ContainerSpec::kFilesVolumeMountPoint))
             << QStringLiteral("--entrypoint")
             << QLatin1String(ContainerSpec::kFilesVolumeMountPoint) + QLatin1Char('/') +
                    QLatin1String(ContainerSpec::kLauncherNameInVolume);
    }
    for (const SharedFolder& folder : policy.sharedFolders) {
        args << QStringLiteral("--mount")
             << QStringLiteral("type=bind,source=%1,target=%2%3%4")
                    .arg(folder.hostPath, folder.mountPoint(),
                         folder.writable ? QString() : QStringLiteral(",ro=true"),
                         sharedFolderMountOptions());
    }
    QMap<QString, QString> environment = spec.environment;
    if (!spec.egressDirectory.isEmpty()) {
        // Read-only: the program can reach the socket (connecting needs no write access to the
        // mount) but cannot leave files on the host's disk.
        args << QStringLiteral("--mount")
             << QStringLiteral("type=bind,source=%1,target=%2,ro=true")
                    .arg(spec.egressDirectory, QLatin1String(ContainerSpec::kEgressMountPoint));
        environment.insert(egressEnvironment(QLatin1String(ContainerSpec::kEgressMountPoint)));
    } else if (spec.egressCarried) {
        environment.insert(egressEnvironment(QLatin1String(ContainerSpec::kFilesVolumeMountPoint)));
    }
    for (auto it = environment.cbegin(); it != environment.cend(); ++it)
        args << QStringLiteral("-e") << it.key() + QLatin1Char('=') + it.value();
    // By name only: the engine reads the value from its own environment, so it is never in argv.
    for (const auto& [name, value] : spec.secretVariables)
        args << QStringLiteral("-e") << name;
    if (throughFolder) {
        args << QStringLiteral("--mount")
             << QStringLiteral("type=bind,source=%1,target=%2")
                    .arg(spec.ioDirectory, QLatin1String(ContainerSpec::kIoMountPoint));
    }
    args << spec.image;
    if (throughFolder) {
        args << QStringLiteral("--listen")
             << QLatin1String(ContainerSpec::kIoMountPoint) + QStringLiteral("/sock");
    } else if (spec.pooled) {
        args << QStringLiteral("--listen") << QStringLiteral("-");
    }
    // A session's driver always reports on the ready fd (cold or pooled).
    if (spec.session)
        args << QStringLiteral("--session");
    if (!spec.egressDirectory.isEmpty()) {
        args << QStringLiteral("--egress-relay")
             << QStringLiteral("%1:%2/%3")
                    .arg(QString::number(ContainerSpec::kEgressProxyPort),
                         QLatin1String(ContainerSpec::kEgressMountPoint),
                         QLatin1String(ContainerSpec::kEgressSocketName));
    } else if (spec.egressCarried) {
        args << QStringLiteral("--egress-relay")
             << QStringLiteral("%1:%2").arg(QString::number(ContainerSpec::kEgressProxyPort),
                                            QLatin1String(ContainerSpec::kEgressCarrierSocket));
    }
    if (spec.session || (spec.pooled && spec.interpreterSignalsReady))
        args << QStringLiteral("--ready-fd") << QStringLiteral("3");
    // The launcher checks that the engine enforces them before the program runs. Under gVisor
    // it cannot: the engine applies them on the host, to gVisor's whole sandbox, and gVisor's
    // kernel shows the program no cgroup. gVisor runs only where runsc may make cgroups (as
    // root); that the engine enforces them there is not checked from inside.
    if (!gvisor) {
        args << QStringLiteral("--limits")
             << QStringLiteral("memory=%1,pids=%2,millicpus=%3")
                    .arg(policy.memoryBytes)
                    .arg(policy.pidsLimit)
                    .arg(qRound64(policy.cpus * 1000))
             << QStringLiteral("--unenforced")
             << (policy.allowUnenforcedLimits ? QStringLiteral("allow") : QStringLiteral("refuse"));
    }
    args << QStringLiteral("--output-cap") << QString::number(policy.outputCapBytes);
    // The launcher makes the output folder and carries its files back after the program.
    args << QStringLiteral("--out-dir") << policy.outputDirectory() << QStringLiteral("--out-files")
         << QString::number(policy.outputFilesMax) << QStringLiteral("--out-bytes")
         << QString::number(policy.outputFilesBytes);
    args << QStringLiteral("--") << spec.command;
    return args;
}

QStringList ContainerRuntime::engineWarnings(const QByteArray& standardError) const
{
    // Podman logs as logrus does (time="..." level=warning msg="..."), Docker's client as
    // "WARNING: ..."; a line of neither kind is kept as it is.
    static const QRegularExpression logrus(
        QStringLiteral("^(?:time=\"[^\"]*\"\\s+)?level=(\\w+)\\s+msg=\"((?:[^\"\\\\]|\\\\.)*)\""));
    QStringList warnings;
    for (const QByteArray& rawLine : standardError.split('\n')) {
        QString line = QString::fromUtf8(rawLine).trimmed();
        if (line.isEmpty())
            continue;
        if (const auto match = logrus.match(line); match.hasMatch()) {
            if (match.captured(1) == QLatin1String("debug") ||
                match.captured(1) == QLatin1String("info"))
                continue;
            line = match.captured(2).replace(QStringLiteral("\\\""), QStringLiteral("\""));
        } else if (line.startsWith(QLatin1String("WARNING: "))) {
            line = line.mid(9);
        }
        line = line.left(300);
        if (!warnings.contains(line))
            warnings << line;
        if (warnings.size() == 5)
            break;
    }
    return warnings;
}

QString ContainerRuntime::setUpNotice(const QString&) const
{
    return {};
}

QString ContainerRuntime::notStartedMessage(const QString& processError) const
{
    return QStringLiteral("The container engine \"%1\" could not be started (%2). Install it "
                          "(on Debian: `%3`) or choose another with --engine podman|docker.")
        .arg(m_program, processError, installCommand());
}

QString ContainerRuntime::explainFailure(const QByteArray&) const
{
    return {};
}

QString ContainerRuntime::defaultImage(Language language) const
{
    return localImageReference(LanguageTraits::defaultImageName(language));
}

QStringList ContainerRuntime::removeImageArguments(const QString& image) const
{
    return {QStringLiteral("rmi"), image};
}

QStringList ContainerRuntime::pullImageArguments(const QString& image) const
{
    return {QStringLiteral("pull"), image};
}

QStringList ContainerRuntime::buildImageArguments(const QString& dockerfile, const QString& tag,
                                                  const QString& contextDir) const
{
    return {QStringLiteral("build"),
            QStringLiteral("--file"),
            dockerfile,
            QStringLiteral("--tag"),
            tag,
            contextDir};
}

QStringList ContainerRuntime::roundTripArguments() const
{
    return {QStringLiteral("ps"), QStringLiteral("--quiet"), QStringLiteral("--filter"),
            QStringLiteral("label=code-sandbox.round-trip")};
}

QStringList ContainerRuntime::volumeCheckArguments(const QStringList& volumes) const
{
    // Both engines print a line for each that exists, and fail if one does not.
    return QStringList{QStringLiteral("volume"), QStringLiteral("inspect"),
                       QStringLiteral("--format"),
                       QStringLiteral("{{.Name}}|{{index .Labels \"%1\"}}|{{index .Labels \"%2\"}}")
                           .arg(QLatin1String(ContainerLabels::kVolumeId),
                                QLatin1String(ContainerLabels::kChecksVolume))} +
           volumes;
}

QStringList ContainerRuntime::volumeCreateArguments(const QString& volume,
                                                    const QMap<QString, QString>& labels) const
{
    return QStringList{QStringLiteral("volume"), QStringLiteral("create")} + labelOptions(labels) +
           QStringList{volume};
}

QStringList ContainerRuntime::volumeFillerArguments(const QString& container, const QString& image,
                                                    const QString& volume, const QString& target,
                                                    const QMap<QString, QString>& labels) const
{
    // Never started: it exists only so that `cp` can reach the volume through it.
    return QStringList{QStringLiteral("create"),
                       QStringLiteral("--pull"),
                       QStringLiteral("never"),
                       QStringLiteral("--name"),
                       container,
                       QStringLiteral("--network"),
                       QStringLiteral("none")} +
           labelOptions(labels) +
           QStringList{QStringLiteral("--mount"),
                       QStringLiteral("type=volume,source=%1,target=%2").arg(volume, target),
                       image};
}

QStringList ContainerRuntime::copyIntoArguments(const QString& hostPath, const QString& container,
                                                const QString& path) const
{
    return {QStringLiteral("cp"), hostPath, container + QLatin1Char(':') + path};
}

QStringList ContainerRuntime::egressCarrierArguments(const QString& container) const
{
    // Under the container's seccomp profile and without capabilities (an exec inherits them from
    // the container), as a user of its own (ContainerSpec::kEgressCarrierUser).
    return {QStringLiteral("exec"),
            QStringLiteral("-i"),
            QStringLiteral("--user"),
            QLatin1String(ContainerSpec::kEgressCarrierUser),
            container,
            QLatin1String(ContainerSpec::kFilesVolumeMountPoint) + QLatin1Char('/') +
                QLatin1String(ContainerSpec::kLauncherNameInVolume),
            QStringLiteral("--egress-carrier"),
            QLatin1String(ContainerSpec::kEgressCarrierSocket)};
}

QStringList ContainerRuntime::copyOutArguments(const QString& container, const QString& path) const
{
    return {QStringLiteral("cp"), container + QLatin1Char(':') + path, QStringLiteral("-")};
}

QStringList ContainerRuntime::volumeRemoveArguments(const QString& volume) const
{
    return {QStringLiteral("volume"), QStringLiteral("rm"), QStringLiteral("--force"), volume};
}

QStringList ContainerRuntime::volumeMountpointArguments(const QString& volume) const
{
    return {QStringLiteral("volume"), QStringLiteral("inspect"), QStringLiteral("--format"),
            QStringLiteral("{{.Mountpoint}}"), volume};
}

QStringList ContainerRuntime::quickRunArguments(const QString& image, const QStringList& command,
                                                const QString& seccompProfile) const
{
    return hardenedRunOptions(seccompProfile) << engineSpecificRunOptions() << image << command;
}

QStringList ContainerRuntime::fileSightArguments(const QString& image, const QString& folder,
                                                 const QString& marker,
                                                 const QString& launcher) const
{
    // The launcher where a sandbox has it, the folder at its own path; `cat` prints the marker.
    return hardenedRunOptions({})
           << QStringLiteral("--mount")
           << QStringLiteral("type=bind,source=%1,target=%2,ro=true")
                  .arg(launcher, QLatin1String(ContainerSpec::kLauncherMountPoint))
           << QStringLiteral("--mount")
           << QStringLiteral("type=bind,source=%1,target=%1,ro=true").arg(folder)
           << QStringLiteral("--entrypoint") << QStringLiteral("cat") << engineSpecificRunOptions()
           << image << folder + QLatin1Char('/') + marker;
}

QStringList ContainerRuntime::hardenedRunOptions(const QString& seccompProfile) const
{
    const SandboxPolicy policy;
    QStringList args{QStringLiteral("run"),
                     QStringLiteral("--rm"),
                     QStringLiteral("-i"),
                     QStringLiteral("--pull"),
                     QStringLiteral("never"),
                     QStringLiteral("--network"),
                     QStringLiteral("none"),
                     QStringLiteral("--memory"),
                     size(policy.memoryBytes),
                     QStringLiteral("--memory-swap"),
                     size(policy.memoryBytes),
                     QStringLiteral("--pids-limit"),
                     QString::number(policy.pidsLimit),
                     QStringLiteral("--read-only"),
                     QStringLiteral("--cap-drop"),
                     QStringLiteral("ALL"),
                     QStringLiteral("--security-opt"),
                     QStringLiteral("no-new-privileges"),
                     QStringLiteral("--user"),
                     policy.user,
                     QStringLiteral("--tmpfs"),
                     tmpfsMount(QStringLiteral("/tmp"), policy.tmpfsBytes),
                     QStringLiteral("--log-driver"),
                     QStringLiteral("none")};
    if (!seccompProfile.isEmpty())
        args << QStringLiteral("--security-opt") << seccompOption(seccompProfile);
    return args;
}

} // namespace csm
