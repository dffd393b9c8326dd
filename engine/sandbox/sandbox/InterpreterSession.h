#pragma once

#include "sandbox/LauncherExitStatus.h"
#include "sandbox/LauncherStreamDecoder.h"
#include "sandbox/SandboxSecrets.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

#include <memory>

namespace csm {

class ContainerChannel;
class ContainerReaper;
class ContainerRuntime;
class EgressEndpoint;
class InterpreterCellChannel;

// A persistent interpreter in a container of its own (the launcher's --session): cells run one
// after another and share its state, as a notebook's do. It owns one container channel: a cold
// one started for it (`ENGINE run -i`, its stdin kept open for the cells), or a warm pool's
// container, its driver already waiting. Each cell's SandboxRun gets an InterpreterCellChannel
// (InterpreterCellChannel::open); only one cell runs at a time.
class InterpreterSession final : public QObject
{
    Q_OBJECT

public:
    enum class State
    {
        Starting, // the container and its driver are starting
        Idle,     // ready for a cell
        Busy,     // a cell is attached
        Ended,
    };

    // A session whose container will be `containerName`, holding `secrets`; start() gives it
    // the container.
    InterpreterSession(const ContainerRuntime& runtime, QString containerName,
                       std::shared_ptr<const SandboxSecrets> secrets, ContainerReaper& reaper,
                       QObject* parent = nullptr);
    // Ends it: the container is removed.
    ~InterpreterSession() override;

    // Takes `channel` over and starts its interpreter: a cold channel of a session's container
    // (not started yet), or a warm pool's session container (WarmPool::Kind::Session), ready
    // (`alreadyReady`) or still starting. ready() or ended() follows. A session that ended
    // meanwhile gives the container straight to the reaper.
    void start(ContainerChannel* channel, bool alreadyReady);
    State state() const { return m_state; }
    // What the engine said while starting its container (for error messages); may be empty.
    QByteArray engineDiagnostics() const;
    QString containerName() const { return m_containerName; }
    const std::shared_ptr<const SandboxSecrets>& secrets() const { return m_secrets; }
    // Cells run so far (the one running included).
    int cellCount() const { return m_cells; }
    qint64 ageMs() const { return m_sinceStart.elapsed(); }
    qint64 idleMs() const { return m_sinceLastCell.elapsed(); }
    // The same as wall-clock times (UTC), for displays that count on from them.
    QDateTime startedAt() const { return m_startedAt; }
    QDateTime lastActiveAt() const { return m_lastActiveAt; }
    // The memory its container held after its last cell (its cgroup's charge, page cache
    // included); -1 before the first cell, or where the cgroup cannot be read.
    qint64 memoryBytes() const { return m_memoryBytes; }
    // Why it ended; empty while it lives.
    QString endReason() const { return m_endReason; }

    // The channel for the next cell, owned by `parent`; null while another cell runs or once
    // the session has ended.
    // Takes `cell` as the running cell; false while another cell runs or once the session has
    // ended. What the launcher sends then goes to it (cellOutput()).
    bool openCell(ContainerChannel* cell);
    // Ends the session (its interpreter and container go); ended() follows at once.
    // `toldByCell`: the result of the cell it ended with says so already.
    void end(const QString& reason, bool toldByCell = false);
    // Whether it ended with a cell whose result said so (the model knows its state is gone).
    bool endedWithCell() const { return m_endedWithCell; }
    // Egress proxy mode: the host's end of the container's network (its channel's); null
    // without one.
    EgressEndpoint* egressEndpoint() const;

Q_SIGNALS:
    void ready();
    void ended(const QString& reason);
    // The running cell ended: the next may open.
    void cellClosed();
    // For the running cell: what its launcher sent, and the session's end under it (with the
    // engine client's exit code, or -1).
    void cellOutput(const QByteArray& bytes);
    void cellLost(const QString& reason, int engineExitCode);

private:
    friend class InterpreterCellChannel;
    void sendCell(const QByteArray& request);
    void interruptCell();
    // The cell is over; `exit`: how its program ended, when the launcher said so (its
    // interpreter may have died with it: the session ends then, before any next cell).
    void closeCell(ContainerChannel* cell, const std::optional<LauncherExitStatus>& exit);
    void onOutput(const QByteArray& bytes);
    void onChannelEnded(int engineExitCode);
    void finish(const QString& reason);
    void write(const QByteArray& bytes);
    // Gives the container to the reaper to remove (the session is over, or the server exits).
    void releaseContainer(bool removeContainer = true);
    // A cell started or ended: the idle time counts from now.
    void markActive();

    const ContainerRuntime& m_runtime;
    ContainerReaper& m_reaper;
    QString m_containerName;
    std::shared_ptr<const SandboxSecrets> m_secrets;
    // Its container, while it lives.
    QPointer<ContainerChannel> m_channel;
    // What the engine had said when the container went.
    QByteArray m_lastEngineDiagnostics;
    // Until its interpreter is ready, what its launcher sends is for the session; afterwards,
    // for the running cell, whose run decodes it.
    LauncherStreamDecoder m_beforeReady;
    QPointer<ContainerChannel> m_cell;
    State m_state = State::Starting;
    QString m_endReason;
    int m_cells = 0;
    qint64 m_memoryBytes = -1;
    bool m_endedWithCell = false;
    QElapsedTimer m_sinceStart;
    QElapsedTimer m_sinceLastCell;
    QDateTime m_startedAt;
    QDateTime m_lastActiveAt;
};

} // namespace csm
