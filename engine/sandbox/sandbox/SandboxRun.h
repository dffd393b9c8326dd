#pragma once

#include "egress/EgressConnection.h"
#include "sandbox/CappedBuffer.h"
#include "sandbox/ExecutionResult.h"
#include "sandbox/LatestOutputLine.h"
#include "sandbox/LauncherStreamDecoder.h"
#include "sandbox/OutputFileCollector.h"
#include "sandbox/RunQueue.h"
#include "sandbox/RunRequest.h"
#include "sandbox/SandboxSecrets.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTimer>

#include <memory>

namespace csm {

class SandboxRunServices;
class ContainerAcquisition;
class ContainerChannel;
class InterpreterSession;
class EgressEndpoint;
class EgressProxy;
struct LauncherExitStatus;

// One program in one fresh container. It takes a warm container from the pool, or checks the
// image (once per image and runner) and starts one (cold); either way it hands the program to
// the container's launcher (csm-launch, PID 1), decodes its frames (started, stdout, stderr,
// exit), enforces the deadline from the moment the program starts, and reports. The result is
// emitted as soon as the launcher reports the exit; the engine's own teardown continues in the
// services' ContainerReaper.
class SandboxRun final : public QObject
{
    Q_OBJECT

public:
    // How long the engine may take to create and start a container before we give up on it.
    static constexpr int kStartTimeoutMs = 60'000;
    // How long an interrupted cell of a session may take to stop before the session is ended.
    static constexpr int kInterruptGraceMs = 3'000;
    // Connections a run's result lists (and the history keeps); a program that opens more gets
    // them counted, not listed.
    static constexpr int kMaxConnectionRecords = 1000;

    // `session`: the interpreter session a cell (request.interpreterName) runs in; null for a
    // program in a container of its own, or when the cell's session is gone (it then fails).
    SandboxRun(SandboxRunServices& services, RunRequest request,
               InterpreterSession* session = nullptr, QObject* parent = nullptr);
    ~SandboxRun() override;

    void start();
    // Kills and removes the container; finished() follows with Outcome::Cancelled.
    void cancel();
    // Empty until a container was chosen.
    QString containerName() const;
    // What a progress message says now: where the run waits in the queue for a free sandbox,
    // else the last line the program printed so far (empty before any), its secrets redacted
    // with `redactor` (raw without one).
    QString progressMessage(const SecretRedactor* redactor) const;
    // What the program has printed so far (up to the output cap). Raw: redact it with secrets().
    const QByteArray& stdoutSoFar() const { return m_stdout.data(); }
    const QByteArray& stderrSoFar() const { return m_stderr.data(); }
    // The secrets in this run's container (before one is chosen: the runner's at the time).
    const std::shared_ptr<const SandboxSecrets>& secrets() const { return m_secrets; }

Q_SIGNALS:
    // The program printed (stdoutSoFar() or stderrSoFar() grew, or would have past the cap).
    void printed();
    void finished(const csm::ExecutionResult& result);

private:
    enum class Phase
    {
        Idle,
        Queued, // waiting for a free sandbox (RunQueue)
        CheckingImage,
        Starting,     // the program is on its way; the launcher has not said it started
        Running,      // the launcher said the program started: the deadline runs
        Interrupting, // a session's cell past its deadline (or cancelled): interrupted, waiting
        Stopping,     // killed (deadline or cancel): waiting for the engine to remove the container
        Done,
    };

    void onAdmitted();
    void onWaitedTooLong();
    void leaveQueue();
    void launch(ContainerChannel* channel);
    // A pooled container taken while it was still starting failed to: the run starts cold.
    void fallBackToCold(const QString& reason);
    void onFrames(const QByteArray& bytes);
    void onFrame(const LauncherStreamDecoder::Frame& frame);
    void onProgramExited(const LauncherExitStatus& status);
    void onInterruptedCellExited(const LauncherExitStatus& status);
    void onInterruptIgnored();
    // What becomes of a session whose cell ended with `status` (empty: nothing to say).
    static QString sessionNoteAfter(const LauncherExitStatus& status);
    void onChannelEnded(int engineExitCode);
    void stop(ExecutionResult::Outcome reason);
    // The run ends as one whose program never ran; `unenforcedLimits` when that is why.
    void failWithEngineError(const QString& message, const QStringList& unenforcedLimits = {});
    void finish(ExecutionResult result);
    void handOverChannel(bool removeContainer);
    // Egress proxy mode: the run's proxy serves the container's connections from now on.
    void serveEgress(EgressEndpoint* endpoint);
    // The run ended: its open connections are cut, and its records are what it made.
    QList<EgressConnection> endEgress();
    // What an ask-mode question says about this run (EgressProxy::setRunLabel).
    QString egressRunLabel() const;
    ExecutionResult collectedResult() const;
    QString engineMissingMessage(const QString& processError) const;
    // What the engine said on stderr (the channel's, or the last one's once handed over); the
    // same as ": TEXT" for a message, or "." when it said nothing.
    QByteArray rawEngineDiagnostics() const;
    QString engineDiagnostics() const;
    QString unenforcedLimitsMessage(const QStringList& limits) const;

    SandboxRunServices& m_services;
    RunRequest m_request;
    // A session's cell, even once the session is gone (m_session is then null).
    const bool m_forSession;
    // How the run gets its container (CheckingImage: until it has one).
    ContainerAcquisition* m_acquisition;
    Phase m_phase = Phase::Idle;
    ExecutionResult::Outcome m_stopReason = ExecutionResult::Outcome::Cancelled;
    bool m_warm = false;
    int m_cellNumber = 0; // a session's cell: its place in the session (1, 2, ...)
    QTimer m_interruptGrace;
    // The run's place in the runner's RunQueue, from start() until it ends.
    RunQueue::Ticket m_ticket = 0;
    bool m_admitted = false;

    QPointer<QProcess> m_remove;
    QPointer<ContainerChannel> m_channel;
    QString m_containerName;
    std::shared_ptr<const SandboxSecrets> m_secrets;
    QByteArray m_lastEngineDiagnostics;
    LauncherStreamDecoder m_decoder;
    QTimer m_deadline;
    // The run's timeout also bounds its wait for a sandbox, or for its session's running cell.
    QTimer m_queueDeadline;
    QTimer m_startDeadline;
    QElapsedTimer m_clock;
    QElapsedTimer m_sinceLaunch;
    // The request as sent (LauncherRequest), kept while a pooled container might still
    // fail to start and the run fall back to a cold one.
    QByteArray m_requestBytes;
    qint64 m_durationMs = 0;
    CappedBuffer m_stdout;
    CappedBuffer m_stderr;
    LatestOutputLine m_latestLine;
    OutputFileCollector m_outputFiles;
    EgressProxy* m_egress = nullptr;
    QPointer<EgressEndpoint> m_egressEndpoint;
    QList<EgressConnection> m_connections;
    int m_connectionsNotRecorded = 0;
};

} // namespace csm
