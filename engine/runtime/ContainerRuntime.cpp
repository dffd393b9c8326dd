#include "runtime/ContainerRuntime.h"

#include "sandbox/ContainerSpec.h"

namespace csm {

namespace {
QString megabytes(qint64 bytes)
{
    return QStringLiteral("%1m").arg((bytes + 1024 * 1024 - 1) / (1024 * 1024));
}

QString tmpfsMount(const QString& path, qint64 bytes)
{
    // mode=1777: the sandbox user is not root and must be able to write there.
    return QStringLiteral("%1:rw,nosuid,nodev,size=%2,mode=1777").arg(path, megabytes(bytes));
}
} // namespace

ContainerRuntime::ContainerRuntime(QString program)
    : m_program(std::move(program))
{}

QStringList ContainerRuntime::runArguments(const ContainerSpec& spec) const
{
    const SandboxPolicy& policy = spec.policy;
    QStringList args{QStringLiteral("run"), QStringLiteral("--rm"), QStringLiteral("-i"),
                     // A minimal init as PID 1: the program gets normal signal semantics (a
                     // SIGKILL it sends itself is not ignored as it would be for PID 1) and
                     // orphaned processes are reaped.
                     QStringLiteral("--init"),
                     // Never reach for a registry: a missing image is reported, not pulled.
                     QStringLiteral("--pull"), QStringLiteral("never"), QStringLiteral("--name"),
                     spec.name};
    for (auto it = spec.labels.cbegin(); it != spec.labels.cend(); ++it)
        args << QStringLiteral("--label") << it.key() + QLatin1Char('=') + it.value();
    args << QStringLiteral("--network") << policy.network << QStringLiteral("--memory")
         << megabytes(policy.memoryBytes) << QStringLiteral("--memory-swap")
         << megabytes(policy.memoryBytes) << QStringLiteral("--cpus")
         << QString::number(policy.cpus) << QStringLiteral("--pids-limit")
         << QString::number(policy.pidsLimit) << QStringLiteral("--read-only")
         << QStringLiteral("--cap-drop") << QStringLiteral("ALL")
         << QStringLiteral("--security-opt") << QStringLiteral("no-new-privileges")
         << QStringLiteral("--user") << policy.user << QStringLiteral("--tmpfs")
         << tmpfsMount(QStringLiteral("/tmp"), policy.tmpfsBytes) << QStringLiteral("--tmpfs")
         << tmpfsMount(policy.workdir, policy.tmpfsBytes) << QStringLiteral("--workdir")
         << policy.workdir
         // Output reaches us through the attached streams; an engine-side log copy of a program
         // that prints gigabytes would only fill the disk.
         << QStringLiteral("--log-driver") << QStringLiteral("none");
    for (auto it = spec.environment.cbegin(); it != spec.environment.cend(); ++it)
        args << QStringLiteral("-e") << it.key() + QLatin1Char('=') + it.value();
    // By name only: the engine reads the value from its own environment, so it is never in argv.
    for (const QString& name : spec.environmentNames)
        args << QStringLiteral("-e") << name;
    args << spec.image << spec.command;
    return args;
}

} // namespace csm
