#include "sandbox/ContainerReaper.h"

#include "core/Logging.h"
#include "runtime/ContainerRuntime.h"

#include <QProcess>
#include <QTimer>

namespace csm {

ContainerReaper::ContainerReaper(const ContainerRuntime& runtime, QObject* parent)
    : QObject(parent)
    , m_runtime(runtime)
{}

ContainerReaper::~ContainerReaper()
{
    // Last resort (the process is going down without drain()): ask the engine to remove what is
    // left without waiting for it.
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it)
        m_runtime.startDetachedRemoval(it.key());
    // Their results are of no use now; QProcess would otherwise wait for each in its destructor.
    for (QProcess* process : std::as_const(m_helpers))
        process->kill();
}

void ContainerReaper::adopt(QProcess* client, const QString& container)
{
    client->disconnect();
    client->setParent(this);
    if (client->state() == QProcess::NotRunning) {
        client->deleteLater();
        return;
    }
    m_entries[container].client = client;
    connect(client, &QProcess::finished, this, [this, client, container] {
        client->deleteLater();
        releaseIfDone(container);
    });
    // Keep reading the client's pipes: a client blocked on a full pipe would never exit.
    connect(client, &QProcess::readyReadStandardOutput, client,
            [client] { client->readAllStandardOutput(); });
    connect(client, &QProcess::readyReadStandardError, client,
            [client] { client->readAllStandardError(); });
    QTimer::singleShot(kExitGraceMs, client, [this, client, container] {
        if (client->state() != QProcess::NotRunning) {
            qCWarning(lcSandbox).noquote()
                << "engine client for" << container << "did not exit; removing the container";
            forceRemove(container);
        }
    });
}

void ContainerReaper::remove(const QString& container)
{
    forceRemove(container);
}

void ContainerReaper::adoptThenRemove(QProcess* starter, const QString& container)
{
    starter->disconnect();
    starter->setParent(this);
    Entry& entry = m_entries[container];
    entry.client = starter;
    entry.removeAfterClient = true;
    connect(starter, &QProcess::finished, this, [this, starter, container] {
        starter->deleteLater();
        m_entries[container].removeAfterClient = false;
        forceRemove(container);
    });
    if (starter->state() == QProcess::NotRunning) {
        starter->deleteLater();
        entry.removeAfterClient = false;
        forceRemove(container);
        return;
    }
    // A starter that never ends (a hung engine) would keep its container for good.
    QTimer::singleShot(kExitGraceMs, starter, [this, starter, container] {
        if (starter->state() == QProcess::NotRunning)
            return;
        qCWarning(lcSandbox).noquote()
            << "engine client for" << container << "did not exit; removing the container";
        m_entries[container].removeAfterClient = false;
        forceRemove(container);
    });
}

void ContainerReaper::adoptHelper(QProcess* process)
{
    process->disconnect();
    process->setParent(this);
    if (process->state() == QProcess::NotRunning) {
        process->deleteLater();
        return;
    }
    m_helpers.insert(process);
    connect(process, &QProcess::finished, this, [this, process] {
        m_helpers.remove(process);
        process->deleteLater();
        emitDrainedIfIdle();
    });
}

void ContainerReaper::adoptAndRemove(QProcess* client, const QString& container)
{
    adopt(client, container);
    m_entries[container]; // tracked even if the client had already exited
    forceRemove(container);
}

void ContainerReaper::forceRemove(const QString& container)
{
    Entry& entry = m_entries[container];
    if (entry.removing)
        return;
    entry.removing = true;
    QProcess* remove = m_runtime.newProcess(m_runtime.forceRemoveArguments(container), this);
    connect(remove, &QProcess::finished, this, [this, remove, container] {
        remove->deleteLater();
        // Both engines name what they removed on stdout, and say nothing when there was none.
        onRemoveFinished(container, !remove->readAllStandardOutput().trimmed().isEmpty());
    });
    connect(remove, &QProcess::errorOccurred, this,
            [this, remove, container](QProcess::ProcessError error) {
                if (error != QProcess::FailedToStart)
                    return;
                remove->deleteLater();
                onRemoveFinished(container, false);
            });
    remove->start();
}

void ContainerReaper::onRemoveFinished(const QString& container, bool removedOne)
{
    const auto it = m_entries.find(container);
    if (it == m_entries.end())
        return;
    it->removing = false;
    const bool clientRunning = it->client && it->client->state() != QProcess::NotRunning;
    if (clientRunning && !removedOne) {
        // Nothing to remove yet while its client still runs: the engine may still be creating
        // the container. Killing the client now would not stop an engine that creates it
        // server-side (a remote one, Podman's service, dockerd): the container would come up
        // after the removal, owned by nobody. So the client lives on, and the removal is tried
        // again, until it removes the container, the client ends, or the grace is over.
        if (!it->findingNothing.isValid())
            it->findingNothing.start();
        if (it->findingNothing.elapsed() < kCreationGraceMs) {
            QTimer::singleShot(kRemoveRetryMs, this, [this, container] {
                const auto again = m_entries.find(container);
                if (again != m_entries.end() && !again->removing)
                    forceRemove(container);
            });
            return;
        }
    }
    // The container is gone; a client still attached to it has nothing left to wait for.
    if (clientRunning)
        it->client->kill();
    releaseIfDone(container);
}

void ContainerReaper::releaseIfDone(const QString& container)
{
    const auto it = m_entries.find(container);
    if (it == m_entries.end())
        return;
    const bool clientRunning = it->client && it->client->state() != QProcess::NotRunning;
    if (clientRunning || it->removing)
        return;
    m_entries.erase(it);
    emitDrainedIfIdle();
}

void ContainerReaper::emitDrainedIfIdle()
{
    if (m_draining && m_entries.isEmpty() && m_helpers.isEmpty())
        Q_EMIT drained();
}

void ContainerReaper::drain()
{
    m_draining = true;
    if (m_entries.isEmpty()) {
        // Queued, and checked again then: a run handing over its client meanwhile is waited for.
        QMetaObject::invokeMethod(this, &ContainerReaper::emitDrainedIfIdle, Qt::QueuedConnection);
        return;
    }
    const auto containers = m_entries.keys();
    for (const QString& container : containers) {
        if (!m_entries.value(container).removeAfterClient)
            forceRemove(container);
    }
}

} // namespace csm
