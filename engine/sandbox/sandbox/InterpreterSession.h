#pragma once

#include "runtime/ContainerSpec.h"
#include "sandbox/CappedBuffer.h"
#include "sandbox/LauncherStreamDecoder.h"
#include "sandbox/SandboxSecrets.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

#include <memory>

class QProcess;

namespace csm {

class ContainerChannel;
class ContainerReaper;
class ContainerRuntime;
class EgressEndpoint;
class InterpreterCellChannel;
class WarmContainerChannel;

// A persistent interpreter in a container of its own (the launcher's --session): cells run one
// after another and share its state, as a notebook's do. Either started for it and attached like
// a cold container (`ENGINE run -i`: cells go in on the engine client's stdin, frames come back
// on its stdout), or taken from the warm pool, its driver already waiting (cells and frames go
// through the launcher's socket). Each cell's SandboxRun gets a InterpreterCellChannel from
// openCell(); only one cell runs at a time.
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

    InterpreterSession(const ContainerRuntime& runtime, const ContainerSpec& spec,
                       std::shared_ptr<const SandboxSecrets> secrets, ContainerReaper& reaper,
                       QObject* parent = nullptr);
    // A warm pool's session container (WarmPool::Kind::Session), ready or still starting; the
    // session owns it from now on.
    InterpreterSession(const ContainerRuntime& runtime, WarmContainerChannel* pooled,
                       ContainerReaper& reaper, QObject* parent = nullptr);
    // Ends it: the container is removed.
    ~InterpreterSession() override;

    // Starts the container (a pooled one: takes it over); ready() or ended() follows.
    void start();
    // Before start(): the files the container starts with changed (a remote engine's copy of
    // them became ready). Nothing for a pooled one, already started.
    void setFiles(const SandboxFiles& files);
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
    ContainerChannel* openCell(QObject* parent);
    // Ends the session (its interpreter and container go); ended() follows at once.
    // `toldByCell`: the result of the cell it ended with says so already.
    void end(const QString& reason, bool toldByCell = false);
    // Whether it ended with a cell whose result said so (the model knows its state is gone).
    bool endedWithCell() const { return m_endedWithCell; }
    // Egress proxy mode: the host's end of the container's network (a pooled container's
    // channel's, or the one given here for a container started for the session, which the
    // session then owns); null without one.
    EgressEndpoint* egressEndpoint() const;
    void setEgressEndpoint(EgressEndpoint* endpoint);

Q_SIGNALS:
    void ready();
    void ended(const QString& reason);
    // The running cell ended: the next may open.
    void cellClosed();

private:
    friend class InterpreterCellChannel;
    void sendCell(const QByteArray& request);
    void interruptCell();
    void closeCell(InterpreterCellChannel* cell);
    void onOutput(const QByteArray& bytes);
    void onClientEnded(int exitCode);
    void finish(const QString& reason);
    void write(const QByteArray& bytes);
    // Gives the container to the reaper to remove (the session is over, or the server exits).
    void releaseContainer();
    // A cell started or ended: the idle time counts from now.
    void markActive();

    const ContainerRuntime& m_runtime;
    ContainerReaper& m_reaper;
    QString m_containerName;
    std::shared_ptr<const SandboxSecrets> m_secrets;
    // The engine client attached to a container started for it, or the pooled container's
    // channel: one of the two while the container lives.
    QPointer<QProcess> m_client;
    // A container of its own: what it is started from.
    ContainerSpec m_spec;
    QPointer<WarmContainerChannel> m_pooled;
    EgressEndpoint* m_egress = nullptr;
    CappedBuffer m_engineStderr;
    LauncherStreamDecoder m_beforeReady;
    LauncherStreamDecoder m_afterReady;
    QPointer<InterpreterCellChannel> m_cell;
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
