#pragma once

#include "platform/ProcessProbe.h"
#include "runtime/ContainerInfo.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QTimer>

#include <functional>

namespace csm {

class ContainerRuntime;

// Removes the containers left behind by servers that died without cleaning up (kill -9, a
// crash, power loss): lists the containers labelled as this application's and removes those of
// this host whose server process is gone. Drives the engine asynchronously through QProcess;
// finished() follows exactly once per start(), also when the engine is missing or fails.
class StaleContainerSweeper final : public QObject
{
    Q_OBJECT

public:
    // Whether the server with this pid is still running.
    using LivenessCheck = std::function<bool(qint64 pid)>;

    // `runtime` must outlive the sweeper. `hostName` is this machine's
    // QSysInfo::machineHostName(), compared with the ContainerLabels::kHost label. An empty
    // `isAlive` means ProcessProbe::isCodeSandboxProcessAlive.
    StaleContainerSweeper(const ContainerRuntime& runtime, QString hostName,
                          LivenessCheck isAlive = &ProcessProbe::isCodeSandboxProcessAlive,
                          QObject* parent = nullptr);
    ~StaleContainerSweeper() override;

    // Starts a sweep; finished() is emitted later, from the event loop, never from inside
    // start(). Ignored while a sweep is running.
    void start();
    bool isRunning() const { return m_running; }
    // Bounds a whole sweep (listing and removals); what is still running then is abandoned.
    void setTimeout(int milliseconds) { m_timeoutMs = milliseconds; }
    // With true, a sweep lists again after its removals, until no stale container is listed or
    // the timeout comes: for the server's last sweep at exit, which must leave nothing behind.
    // An engine may still be removing a container it was asked to remove before (Docker
    // answers `rm -f` of a container it is already removing at once, with an error, and lists
    // it until it is gone).
    void setRepeatUntilGone(bool repeat) { m_repeatUntilGone = repeat; }

    // The decision, without any engine: containers with our app label, whose host label is
    // `hostName` or absent, and whose pid label is missing, unreadable or not `isAlive`.
    static QList<ContainerInfo> staleContainers(const QList<ContainerInfo>& containers,
                                                const QString& hostName,
                                                const LivenessCheck& isAlive);

Q_SIGNALS:
    // How many containers the engine confirmed removing.
    void finished(int removedCount);

private:
    QProcess* newEngineProcess(const QStringList& arguments);
    void list();
    void onListed(QProcess* process, int exitCode, QProcess::ExitStatus status);
    void remove(const QList<ContainerInfo>& containers);
    void onRemoved(const ContainerInfo& container, QProcess* process, bool succeeded);
    void onTimeout();
    void fail(const QString& message);
    void finish();

    const ContainerRuntime& m_runtime;
    QString m_hostName;
    LivenessCheck m_isAlive;
    int m_timeoutMs = 60'000;
    bool m_repeatUntilGone = false;
    // Between a round's removals and the listing that checks them.
    static constexpr int kRecheckDelayMs = 200;

    bool m_running = false;
    int m_removed = 0;
    int m_pendingRemovals = 0;
    QList<QPointer<QProcess>> m_processes;
    QTimer m_deadline;
};

} // namespace csm
