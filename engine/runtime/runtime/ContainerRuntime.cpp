#include "runtime/ContainerRuntime.h"

#include "core/ByteSize.h"
#include "platform/EngineWorkingDirectory.h"
#include "runtime/ContainerSpec.h"
#include "runtime/SandboxPolicy.h"

#include <QProcess>
#include <QRegularExpression>

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
    process->setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    // Not the server's own working directory: the engine's helpers leave files in theirs
    // (conmon writes "oom" after an out-of-memory kill).
    process->setWorkingDirectory(EngineWorkingDirectory::path());
    return process;
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

QMap<QString, QString> ContainerRuntime::egressEnvironment()
{
    const QString proxy =
        QStringLiteral("http://127.0.0.1:%1").arg(ContainerSpec::kEgressProxyPort);
    const QString local = QStringLiteral("localhost,127.0.0.1,::1");
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
             .arg(QLatin1String(ContainerSpec::kEgressMountPoint),
                  QLatin1String(ContainerSpec::kEgressNodePreloadName))},
    };
}

QStringList ContainerRuntime::runArguments(const ContainerSpec& spec) const
{
    const SandboxPolicy& policy = spec.policy;
    const bool pooled = !spec.ioDirectory.isEmpty();
    // A pooled container runs detached: no engine client stays attached while it waits, and the
    // server reaches its launcher through a socket in the bind-mounted folder instead.
    QStringList args{QStringLiteral("run"), QStringLiteral("--rm"),
                     pooled ? QStringLiteral("--detach") : QStringLiteral("-i"),
                     // Never reach for a registry: a missing image is reported, not pulled.
                     QStringLiteral("--pull"), QStringLiteral("never"), QStringLiteral("--name"),
                     spec.name};
    for (auto it = spec.labels.cbegin(); it != spec.labels.cend(); ++it)
        args << QStringLiteral("--label") << it.key() + QLatin1Char('=') + it.value();
    // Proxy mode: the proxy is the only way out, whatever the policy says.
    const QString network =
        spec.egressDirectory.isEmpty() ? policy.network : QStringLiteral("none");
    args << QStringLiteral("--network") << network << QStringLiteral("--memory")
         << size(policy.memoryBytes) << QStringLiteral("--memory-swap") << size(policy.memoryBytes)
         << QStringLiteral("--cpus") << QString::number(policy.cpus)
         << QStringLiteral("--pids-limit") << QString::number(policy.pidsLimit)
         << QStringLiteral("--read-only") << QStringLiteral("--cap-drop") << QStringLiteral("ALL")
         << QStringLiteral("--security-opt")
         << QStringLiteral("no-new-privileges")
         // Ours, not the engine's default: Podman's lets a program create user namespaces.
         << QStringLiteral("--security-opt") << seccompOption(spec.files.seccompProfile)
         << QStringLiteral("--user") << policy.user << QStringLiteral("--tmpfs")
         << tmpfsMount(QStringLiteral("/tmp"), policy.tmpfsBytes) << QStringLiteral("--tmpfs")
         << tmpfsMount(policy.workdir, policy.tmpfsBytes) << QStringLiteral("--shm-size")
         << size(policy.tmpfsBytes) << QStringLiteral("--workdir")
         << policy.workdir
         // Output reaches us through the attached streams; an engine-side log copy of a program
         // that prints gigabytes would only fill the disk.
         << QStringLiteral("--log-driver") << QStringLiteral("none");
    args << engineSpecificRunOptions();
    // Our launcher is PID 1 whatever the image says: it reaps orphans, frames the program's
    // output and reports its exit status and an out-of-memory kill (see launcher/csm-launch.c).
    args << QStringLiteral("--mount")
         << QStringLiteral("type=bind,source=%1,target=%2,ro=true")
                .arg(spec.files.launcher, QLatin1String(ContainerSpec::kLauncherMountPoint))
         << QStringLiteral("--entrypoint") << QLatin1String(ContainerSpec::kLauncherMountPoint);
    for (const SharedFolder& folder : policy.sharedFolders) {
        args << QStringLiteral("--mount")
             << QStringLiteral("type=bind,source=%1,target=%2%3")
                    .arg(folder.hostPath, folder.mountPoint(),
                         folder.writable ? QString() : QStringLiteral(",ro=true"));
    }
    QMap<QString, QString> environment = spec.environment;
    if (!spec.egressDirectory.isEmpty()) {
        // Read-only: the program can reach the socket (connecting needs no write access to the
        // mount) but cannot leave files on the host's disk.
        args << QStringLiteral("--mount")
             << QStringLiteral("type=bind,source=%1,target=%2,ro=true")
                    .arg(spec.egressDirectory, QLatin1String(ContainerSpec::kEgressMountPoint));
        environment.insert(egressEnvironment());
    }
    for (auto it = environment.cbegin(); it != environment.cend(); ++it)
        args << QStringLiteral("-e") << it.key() + QLatin1Char('=') + it.value();
    // By name only: the engine reads the value from its own environment, so it is never in argv.
    for (const auto& [name, value] : spec.secretVariables)
        args << QStringLiteral("-e") << name;
    if (pooled) {
        args << QStringLiteral("--mount")
             << QStringLiteral("type=bind,source=%1,target=%2")
                    .arg(spec.ioDirectory, QLatin1String(ContainerSpec::kIoMountPoint));
    }
    args << spec.image;
    if (pooled) {
        args << QStringLiteral("--listen")
             << QLatin1String(ContainerSpec::kIoMountPoint) + QStringLiteral("/sock");
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
    }
    if (spec.session || (pooled && spec.interpreterSignalsReady))
        args << QStringLiteral("--ready-fd") << QStringLiteral("3");
    // The launcher checks that the engine enforces them before the program runs.
    args << QStringLiteral("--limits")
         << QStringLiteral("memory=%1,pids=%2,millicpus=%3")
                .arg(policy.memoryBytes)
                .arg(policy.pidsLimit)
                .arg(qRound64(policy.cpus * 1000))
         << QStringLiteral("--unenforced")
         << (policy.allowUnenforcedLimits ? QStringLiteral("allow") : QStringLiteral("refuse"));
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

QStringList ContainerRuntime::quickRunArguments(const QString& image, const QStringList& command,
                                                const QString& seccompProfile) const
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
    args << engineSpecificRunOptions() << image << command;
    return args;
}

} // namespace csm
