#pragma once

#include "sandbox/ContainerChannel.h"
#include "sandbox/LauncherExitStatus.h"
#include "sandbox/LauncherStreamDecoder.h"
#include "sandbox/SandboxSecrets.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QPointer>

#include <memory>
#include <optional>

namespace csm {

class ContainerReaper;
class ContainerRuntime;
class EgressEndpoint;

// A persistent interpreter in a container of its own (the launcher's --session): cells run one
// after another and share its state, as a notebook's do. It owns one container channel: a cold
// one started for it (`ENGINE run -i`, its stdin kept open for the cells), or a warm pool's
// container, its driver already waiting.
//
// A cell's SandboxRun borrows the session itself as its channel (lendToCell()) and drives it as
// it drives any container channel: the request it sends is the cell, what the launcher sends
// back is the cell's, and an interrupt stops the cell, not the container. Releasing it gives it
// back for the next cell; the container stays, unless the run removes it (a cell that would not
// stop), which ends the session. Only one cell runs at a time.
class InterpreterSession final : public ContainerChannel
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

    // A session whose container will be `containerName`, holding `secrets` (secrets()); start()
    // gives it the container.
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
    // Whether a cell holds it now: running, or waiting for the session to start.
    bool hasCell() const { return m_lent; }
    // What the engine said about its container (for error messages); may be empty.
    QByteArray engineDiagnostics() const override;
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

    // Lends the session to the next cell; false while another cell has it or once the session
    // has ended. Until the cell's run releases it, what the launcher sends is the cell's
    // (framesReceived()), and so is the session's end (ended(), or failedToStart() before the
    // cell was sent).
    bool lendToCell();
    // Ends the session (its interpreter and container go); closed() follows at once.
    // `toldByCell`: the result of the cell it ended with says so already.
    void end(const QString& reason, bool toldByCell = false);
    // Whether it ended with a cell whose result said so (the model knows its state is gone).
    bool endedWithCell() const { return m_endedWithCell; }

    // The cell's side (ContainerChannel). A request sent while the session is still starting
    // waits for it.
    void sendRequest(const QByteArray& request) override;
    // Stops the running cell (KeyboardInterrupt); the session keeps its state.
    bool interrupt() override;
    void programExited(const LauncherExitStatus& status) override { m_cellExit = status; }
    // Egress proxy mode: the host's end of the container's network (its channel's); null
    // without one.
    EgressEndpoint* egressEndpoint() const override;
    // The cell is over and the session takes the next, or ends when `removeContainer` (a cell
    // that would not stop, or how its program ended: its interpreter died with it). The session
    // is not deleted: it lives on in InterpreterSessions.
    QByteArray release(ContainerReaper& reaper, bool removeContainer, QObject* holder) override;
    // The same, but for the holder's listening (release() is how a cell gives it back).
    void handOver(ContainerReaper& reaper, bool removeContainer) override;

Q_SIGNALS:
    void ready();
    // The session ended (its interpreter and container are gone), with why.
    void closed(const QString& reason);
    // The running cell gave the session back: the next may borrow it.
    void cellClosed();

private:
    void sendCell(const QByteArray& request);
    // The running cell is over; `exit`: how its program ended, when the launcher said so (its
    // interpreter may have died with it: the session ends then, before any next cell).
    void closeCell(const std::optional<LauncherExitStatus>& exit);
    // The session ended under its running cell.
    void loseCell(const QString& reason, int engineExitCode);
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
    // Its container, while it lives.
    QPointer<ContainerChannel> m_channel;
    // What the engine had said when the container went.
    QByteArray m_lastEngineDiagnostics;
    // Until its interpreter is ready, what its launcher sends is for the session; afterwards,
    // for the running cell, whose run decodes it.
    LauncherStreamDecoder m_beforeReady;
    // The running cell: lent, its request sent, how its program ended.
    bool m_lent = false;
    // Its request, sent while the session was still starting: it goes once the session is ready.
    std::optional<QByteArray> m_waitingCell;
    bool m_cellSent = false;
    std::optional<LauncherExitStatus> m_cellExit;
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
