#include "sandbox/StaleContainerSweeper.h"

#include "core/Logging.h"
#include "core/Version.h"
#include "runtime/ContainerLabels.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/EngineMessage.h"

namespace csm {

StaleContainerSweeper::StaleContainerSweeper(const ContainerRuntime& runtime, QString hostName,
                                             LivenessCheck isAlive, QObject* parent)
    : QObject(parent)
    , m_runtime(runtime)
    , m_hostName(std::move(hostName))
    , m_isAlive(isAlive ? std::move(isAlive)
                        : LivenessCheck(&ProcessProbe::isCodeSandboxProcessAlive))
{
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, &StaleContainerSweeper::onTimeout);
}

StaleContainerSweeper::~StaleContainerSweeper() = default;

QList<ContainerInfo> StaleContainerSweeper::staleContainers(const QList<ContainerInfo>& containers,
                                                            const QString& hostName,
                                                            const LivenessCheck& isAlive)
{
    const QLatin1String app(kApplicationName);
    const QString appKey = QLatin1String(ContainerLabels::kApp);
    const QString hostKey = QLatin1String(ContainerLabels::kHost);
    const QString pidKey = QLatin1String(ContainerLabels::kPid);
    QList<ContainerInfo> stale;
    for (const ContainerInfo& container : containers) {
        if (container.labels.value(appKey) != app)
            continue;
        // A pid means nothing on another machine sharing the engine. No host label: a server
        // that predates it, which can only have run here.
        const QString host = container.labels.value(hostKey);
        if (!host.isEmpty() && host.compare(hostName, Qt::CaseInsensitive) != 0)
            continue;
        bool ok = false;
        const qint64 pid = container.labels.value(pidKey).toLongLong(&ok);
        const bool alive = ok && pid > 0 &&
                           (isAlive ? isAlive(pid) : ProcessProbe::isCodeSandboxProcessAlive(pid));
        if (!alive)
            stale.append(container);
    }
    return stale;
}

void StaleContainerSweeper::start()
{
    if (m_running)
        return;
    m_running = true;
    m_removed = 0;
    m_pendingRemovals = 0;
    if (m_timeoutMs > 0)
        m_deadline.start(m_timeoutMs);
    // Deferred, so that finished() is never emitted from inside start(), even when the engine
    // cannot be started at all.
    QMetaObject::invokeMethod(this, &StaleContainerSweeper::list, Qt::QueuedConnection);
}

QProcess* StaleContainerSweeper::newEngineProcess(const QStringList& arguments)
{
    QProcess* process = m_runtime.newProcess(arguments, this);
    m_processes.append(process);
    return process;
}

void StaleContainerSweeper::list()
{
    if (!m_running)
        return; // timed out before the event loop came round
    QProcess* process = newEngineProcess(m_runtime.listContainersArguments());
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return; // a crash is followed by finished()
        process->deleteLater();
        fail(QStringLiteral("%1 could not be started (%2)")
                 .arg(m_runtime.program(), process->errorString()));
    });
    connect(process, &QProcess::finished, this,
            [this, process](int exitCode, QProcess::ExitStatus status) {
                process->deleteLater();
                onListed(process, status == QProcess::NormalExit ? exitCode : -1, status);
            });
    process->start();
}

void StaleContainerSweeper::onListed(QProcess* process, int exitCode, QProcess::ExitStatus status)
{
    const QByteArray output = process->readAllStandardOutput();
    const QByteArray errors = process->readAllStandardError();
    if (status != QProcess::NormalExit || exitCode != 0) {
        fail(QStringLiteral("`%1 ps` failed (exit %2): %3")
                 .arg(m_runtime.name())
                 .arg(exitCode)
                 .arg(errors.trimmed().isEmpty() ? QStringLiteral("no message")
                                                 : engineMessageLine(errors)));
        return;
    }
    const QList<ContainerInfo> containers = m_runtime.parseContainerList(output);
    const QList<ContainerInfo> stale = staleContainers(containers, m_hostName, m_isAlive);
    qCDebug(lcSandbox) << m_runtime.name() << "lists" << containers.size() << "sandbox containers,"
                       << stale.size() << "of them stale";
    if (stale.isEmpty()) {
        finish();
        return;
    }
    remove(stale);
}

void StaleContainerSweeper::remove(const QList<ContainerInfo>& containers)
{
    // One rm per container, all at once: a failure names its container, and there are few.
    m_pendingRemovals = int(containers.size());
    for (const ContainerInfo& container : containers) {
        QProcess* process = newEngineProcess(m_runtime.forceRemoveArguments(container.reference()));
        connect(process, &QProcess::errorOccurred, this,
                [this, container, process](QProcess::ProcessError error) {
                    if (error == QProcess::FailedToStart)
                        onRemoved(container, process, false);
                });
        connect(process, &QProcess::finished, this,
                [this, container, process](int exitCode, QProcess::ExitStatus status) {
                    onRemoved(container, process, status == QProcess::NormalExit && exitCode == 0);
                });
        process->start();
    }
}

void StaleContainerSweeper::onRemoved(const ContainerInfo& container, QProcess* process,
                                      bool succeeded)
{
    process->deleteLater();
    if (!m_running)
        return;
    if (succeeded) {
        ++m_removed;
        const QString pid = container.labels.value(QLatin1String(ContainerLabels::kPid));
        const QString instance = container.labels.value(QLatin1String(ContainerLabels::kInstance));
        qCInfo(lcSandbox).noquote()
            << QStringLiteral("removed stale container %1 (instance %2, %3)")
                   .arg(container.displayName(),
                        instance.isEmpty() ? QStringLiteral("unknown") : instance,
                        pid.isEmpty() ? QStringLiteral("no server pid")
                                      : QStringLiteral("no server runs as pid %1").arg(pid));
    } else {
        const QString reason = process->error() == QProcess::FailedToStart
                                   ? process->errorString()
                                   : engineMessageLine(process->readAllStandardError());
        qCWarning(lcSandbox).noquote() << QStringLiteral("could not remove stale container %1: %2")
                                              .arg(container.displayName(), reason);
    }
    if (--m_pendingRemovals > 0)
        return;
    if (m_repeatUntilGone)
        QTimer::singleShot(kRecheckDelayMs, this, &StaleContainerSweeper::list);
    else
        finish();
}

void StaleContainerSweeper::onTimeout()
{
    if (!m_running)
        return;
    // The engine does the removal server-side; killing its client at once loses nothing.
    for (const QPointer<QProcess>& process : std::as_const(m_processes)) {
        if (!process)
            continue;
        process->disconnect(this);
        connect(process, &QProcess::finished, process, &QObject::deleteLater);
        process->kill();
    }
    qCWarning(lcSandbox).noquote()
        << QStringLiteral("sweeping stale containers: %1 did not answer within %2 ms")
               .arg(m_runtime.name())
               .arg(m_timeoutMs);
    finish();
}

void StaleContainerSweeper::fail(const QString& message)
{
    if (!m_running)
        return;
    qCWarning(lcSandbox).noquote() << "cannot sweep stale containers:" << message;
    finish();
}

void StaleContainerSweeper::finish()
{
    if (!m_running)
        return;
    m_running = false;
    m_deadline.stop();
    m_processes.clear();
    if (m_removed > 0)
        qCInfo(lcSandbox) << "removed" << m_removed << "stale container(s) of dead servers";
    Q_EMIT finished(m_removed);
}

} // namespace csm
