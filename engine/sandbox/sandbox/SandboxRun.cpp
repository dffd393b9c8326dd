#include "sandbox/SandboxRun.h"

#include "core/ByteSize.h"
#include "core/Logging.h"
#include "egress/EgressProxy.h"
#include "runtime/ContainerRuntime.h"
#include "sandbox/ContainerAcquisition.h"
#include "sandbox/ContainerChannel.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/EgressEndpoint.h"
#include "sandbox/LauncherExitStatus.h"
#include "sandbox/LauncherRequest.h"
#include "sandbox/SandboxRunServices.h"

#include <QTime>

#include <utility>

namespace csm {

namespace {
// What a program killed at its deadline is reported with: it died of SIGKILL.
constexpr int kKilledExitCode = 128 + 9;
} // namespace

SandboxRun::SandboxRun(SandboxRunServices& services, RunRequest request,
                       InterpreterSession* session, QObject* parent)
    : QObject(parent)
    , m_services(services)
    , m_request(std::move(request))
    , m_forSession(!m_request.interpreterName.isEmpty())
    , m_acquisition(new ContainerAcquisition(services, m_request.language, m_request.image,
                                             m_request.timeoutMs, m_forSession, session, this))
    , m_secrets(services.secrets())
    , m_stdout(services.policy().outputCapBytes)
    , m_stderr(services.policy().outputCapBytes)
    , m_outputFiles(m_request.outputDirectory,
                    {services.policy().outputFilesMax, services.policy().outputFilesBytes})
{
    // The timeout is the caller's number, and a program must get all of it: QTimer's default, a
    // coarse timer, may fire up to 5 % early (a program given 15 s was stopped at 14.3 s).
    m_deadline.setSingleShot(true);
    m_deadline.setTimerType(Qt::PreciseTimer);
    connect(&m_deadline, &QTimer::timeout, this,
            [this] { stop(ExecutionResult::Outcome::TimedOut); });
    m_queueDeadline.setSingleShot(true);
    m_queueDeadline.setTimerType(Qt::PreciseTimer);
    connect(&m_queueDeadline, &QTimer::timeout, this, &SandboxRun::onWaitedTooLong);
    connect(m_acquisition, &ContainerAcquisition::acquired, this,
            [this](ContainerChannel* channel) {
                if (m_phase != Phase::CheckingImage) {
                    // Cancelled meanwhile: let go of it at once (a session lent to this cell
                    // goes back for the next).
                    channel->release(m_services.reaper(), !m_forSession, this);
                    return;
                }
                m_warm = m_acquisition->isWarm();
                m_cellNumber = m_acquisition->cellNumber();
                launch(channel);
            });
    connect(m_acquisition, &ContainerAcquisition::failed, this, [this](const QString& message) {
        if (m_phase != Phase::CheckingImage)
            return;
        // Its message is redacted with the secrets a container would have got now.
        m_secrets = m_services.secrets();
        failWithEngineError(message);
    });
    connect(m_acquisition, &ContainerAcquisition::waitedTooLong, this,
            [this](const QString& message) {
                if (m_phase != Phase::CheckingImage)
                    return;
                ExecutionResult result;
                result.outcome = ExecutionResult::Outcome::TimedOutWaiting;
                result.engineError = message;
                finish(result);
            });
    m_interruptGrace.setSingleShot(true);
    connect(&m_interruptGrace, &QTimer::timeout, this, &SandboxRun::onInterruptIgnored);
    m_startDeadline.setSingleShot(true);
    connect(&m_startDeadline, &QTimer::timeout, this, [this] {
        if (m_phase != Phase::Starting)
            return;
        const QString message =
            QStringLiteral("The container engine %1 did not start the sandbox within %2 s%3")
                .arg(m_services.runtime().name())
                .arg(kStartTimeoutMs / 1000)
                .arg(engineDiagnostics());
        handOverChannel(true);
        failWithEngineError(message);
    });
}

SandboxRun::~SandboxRun()
{
    if (m_admitted && m_phase != Phase::Done)
        m_services.runEnded(m_forSession);
    leaveQueue();
    // Destroyed while its container may still exist (the server is going down): the reaper
    // removes it.
    handOverChannel(true);
}

QString SandboxRun::containerName() const
{
    return m_containerName;
}

void SandboxRun::start()
{
    m_phase = Phase::Queued;
    // Admission comes from the event loop, even with a slot free: finished() is never emitted
    // from inside start(), even when the engine cannot be started at all.
    RunQueue& queue = m_services.queue();
    m_ticket = queue.request(this, [this] { onAdmitted(); });
    if (const int ahead = queue.waitingAhead(m_ticket); ahead >= 0) {
        qCInfo(lcSandbox).noquote()
            << "all" << queue.limits().maxRunning << "sandboxes are busy; the call waits," << ahead
            << "ahead of it";
        m_queueDeadline.start(m_request.timeoutMs);
    }
}

void SandboxRun::onAdmitted()
{
    if (m_phase != Phase::Queued)
        return;
    m_queueDeadline.stop();
    m_admitted = true;
    m_phase = Phase::CheckingImage;
    m_services.runStarted(m_forSession);
    // Settings the desktop app applies reach here unchecked by a command line.
    if (const QString problem = m_services.policy().conflict(); !problem.isEmpty()) {
        failWithEngineError(problem);
        return;
    }
    m_acquisition->begin();
}

void SandboxRun::onWaitedTooLong()
{
    if (m_phase != Phase::Queued)
        return;
    leaveQueue();
    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::TimedOutWaiting;
    result.engineError =
        QStringLiteral("The call timed out after %1 s waiting for a free sandbox; the program "
                       "never ran. This server runs at most %2 sandboxes at once (--max-running) "
                       "and they were all busy: try again when other calls have finished, or "
                       "with a longer timeout_seconds.")
            .arg(QString::number(m_request.timeoutMs / 1000.0))
            .arg(m_services.queue().limits().maxRunning);
    finish(result);
}

void SandboxRun::leaveQueue()
{
    if (const RunQueue::Ticket ticket = std::exchange(m_ticket, 0))
        m_services.queue().release(ticket);
}

QString SandboxRun::progressMessage(const SecretRedactor* redactor) const
{
    if (m_phase == Phase::Queued) {
        const int ahead = m_services.queue().waitingAhead(m_ticket);
        if (ahead >= 0) {
            return QStringLiteral("Waiting for a free sandbox: %1 call(s) ahead (at most %2 run "
                                  "at once)")
                .arg(ahead)
                .arg(m_services.queue().limits().maxRunning);
        }
    }
    return m_latestLine.text(redactor);
}

void SandboxRun::launch(ContainerChannel* channel)
{
    m_phase = Phase::Starting;
    m_channel = channel;
    m_secrets = channel->secrets();
    m_containerName = channel->containerName();
    serveEgress(channel->egressEndpoint());
    connect(channel, &ContainerChannel::framesReceived, this, &SandboxRun::onFrames);
    connect(channel, &ContainerChannel::ended, this, &SandboxRun::onChannelEnded);
    connect(channel, &ContainerChannel::failedToStart, this, [this](const QString& reason) {
        if (m_phase != Phase::Starting)
            return;
        if (m_warm) {
            fallBackToCold(reason);
            return;
        }
        if (m_cellNumber > 0) {
            failWithEngineError(QStringLiteral("The session could not run the cell: %1; its "
                                               "state is gone. Call again to start a new one.")
                                    .arg(reason));
            return;
        }
        m_services.setImageKnownPresent(m_request.image, false);
        failWithEngineError(engineMissingMessage(reason));
    });
    qCDebug(lcSandbox).noquote() << "running" << m_containerName << "from" << m_request.image
                                 << (m_warm ? "(warm)" : "(cold)");
    m_startDeadline.start(kStartTimeoutMs);
    m_sinceLaunch.start();
    if (m_requestBytes.isEmpty()) {
        m_requestBytes = LauncherRequest::encode(m_request.code, m_request.inputFiles);
        m_request.code = {};
        m_request.inputFiles = {};
    }
    channel->sendRequest(m_requestBytes);
    // The channel keeps its own copy until it is delivered; a cold start cannot fall back.
    if (!m_warm)
        m_requestBytes = {};
}

void SandboxRun::fallBackToCold(const QString& reason)
{
    qCInfo(lcSandbox).noquote() << "the pooled container" << m_containerName << "failed to start ("
                                << reason << "); starting a cold one";
    m_startDeadline.stop();
    handOverChannel(true);
    m_warm = false;
    m_phase = Phase::CheckingImage;
    m_acquisition->fallBackToCold();
}

void SandboxRun::onFrames(const QByteArray& bytes)
{
    m_decoder.append(bytes);
    while (m_phase != Phase::Done) {
        const auto frame = m_decoder.next();
        if (!frame)
            break;
        onFrame(*frame);
    }
    if (m_decoder.isCorrupt() && m_phase != Phase::Done) {
        handOverChannel(true);
        failWithEngineError(
            QStringLiteral("The sandbox sent output that is not from its launcher (%1); the run "
                           "was stopped.")
                .arg(m_decoder.error()));
    }
}

void SandboxRun::onFrame(const LauncherStreamDecoder::Frame& frame)
{
    using Type = LauncherStreamDecoder::Frame::Type;
    switch (frame.type) {
    case Type::Started:
        if (m_phase == Phase::Starting) {
            if (!m_warm && m_cellNumber == 0) {
                m_services.reportColdStart(m_request.language, m_request.image,
                                           m_sinceLaunch.elapsed());
            }
            m_requestBytes = {};
            // The program is in the interpreter's hands: from here its timeout runs.
            m_phase = Phase::Running;
            m_startDeadline.stop();
            m_clock.start();
            m_deadline.start(m_request.timeoutMs);
        }
        return;
    case Type::Stdout:
        m_stdout.append(frame.payload);
        m_latestLine.append(frame.payload);
        Q_EMIT printed();
        return;
    case Type::Stderr:
        m_stderr.append(frame.payload);
        m_latestLine.append(frame.payload);
        Q_EMIT printed();
        return;
    case Type::File:
        m_outputFiles.beginFile(frame.payload);
        return;
    case Type::FileData:
        m_outputFiles.appendData(frame.payload);
        return;
    case Type::FileSkipped:
        m_outputFiles.skipFile(frame.payload);
        return;
    case Type::Ready:
    case Type::Up:
        return; // a pooled container taken as it started or became ready: nothing to do
    case Type::Exit: {
        const std::optional<LauncherExitStatus> status = LauncherExitStatus::parse(frame.payload);
        if (status && m_channel)
            m_channel->programExited(*status);
        if (m_phase == Phase::Interrupting) {
            if (status)
                onInterruptedCellExited(*status);
            return;
        }
        if (m_phase != Phase::Running)
            return; // already being killed: the deadline's verdict stands
        if (status) {
            onProgramExited(*status);
        } else {
            handOverChannel(true);
            failWithEngineError(QStringLiteral("The sandbox launcher reported an unreadable exit "
                                               "status \"%1\".")
                                    .arg(QString::fromLatin1(frame.payload.left(200))));
        }
        return;
    }
    case Type::LimitsUnenforced: {
        if (m_phase != Phase::Starting && m_phase != Phase::Running)
            return; // already being stopped: cancelled or past its deadline
        handOverChannel(false);
        const QStringList limits = LauncherExitStatus::limitNames(
            LauncherExitStatus::parseUnenforced(frame.payload).value_or(0));
        failWithEngineError(unenforcedLimitsMessage(limits), limits);
        return;
    }
    case Type::Failure:
        if (m_phase != Phase::Starting && m_phase != Phase::Running)
            return;
        handOverChannel(false);
        failWithEngineError(QStringLiteral("The sandbox could not run the program in %1: %2. Does "
                                           "the image have the interpreter on its PATH?")
                                .arg(m_request.image, QString::fromUtf8(frame.payload)));
        return;
    }
}

void SandboxRun::onProgramExited(const LauncherExitStatus& status)
{
    // The launcher's own measure where it gives one: the host may read the started and exit
    // frames in one go, and would then see a program that took no time. Rounded up: a program
    // that ran at all ran for more than 0 ms.
    m_durationMs =
        status.elapsedMicroseconds ? (*status.elapsedMicroseconds + 999) / 1000 : m_clock.elapsed();
    m_deadline.stop();
    ExecutionResult result = collectedResult();
    result.outcome = ExecutionResult::Outcome::Exited;
    result.exitCode = status.exitCode;
    result.oomKilled = status.oomKilled;
    // The launcher's counts are exact: a program that printed just the cap lost nothing.
    result.stdoutTruncated = m_stdout.truncated() || status.stdoutDropped > 0;
    result.stderrTruncated = m_stderr.truncated() || status.stderrDropped > 0;
    result.unenforcedLimits = LauncherExitStatus::limitNames(status.unenforcedLimits);
    for (const QString& warning : m_services.runtime().engineWarnings(rawEngineDiagnostics())) {
        m_services.reportEngineWarning(warning);
        if (m_services.runtime().setUpNotice(warning).isEmpty())
            result.engineWarnings << warning;
    }
    result.outputFiles = m_outputFiles.finish();
    result.sessionNote = sessionNoteAfter(status);
    // The engine still tears the container down (--rm): off the call's path. Handed over before
    // the result goes out, so that a shutdown it triggers waits for this teardown too.
    handOverChannel(false);
    finish(result);
}

QString SandboxRun::sessionNoteAfter(const LauncherExitStatus& status)
{
    if (status.sessionAlive.value_or(true))
        return {};
    return QStringLiteral("the session's interpreter ended with this cell (%1), and its state is "
                          "gone; the next call with this session starts a new one")
        .arg(status.signal ? QStringLiteral("signal %1").arg(status.signal)
                           : QStringLiteral("exit code %1").arg(status.exitCode));
}

void SandboxRun::onInterruptedCellExited(const LauncherExitStatus& status)
{
    m_interruptGrace.stop();
    ExecutionResult result = collectedResult();
    result.outcome = m_stopReason;
    result.exitCode = status.exitCode;
    result.oomKilled = status.oomKilled;
    result.outputFiles = m_outputFiles.finish();
    result.sessionNote = status.sessionAlive.value_or(false)
                             ? QStringLiteral("the cell was interrupted, and the session keeps "
                                              "its state")
                             : sessionNoteAfter(status);
    handOverChannel(false);
    finish(result);
}

void SandboxRun::onInterruptIgnored()
{
    if (m_phase != Phase::Interrupting)
        return;
    ExecutionResult result = collectedResult();
    result.outcome = m_stopReason;
    result.exitCode = kKilledExitCode;
    result.sessionNote =
        QStringLiteral("the cell did not stop within %1 s of its interrupt, so the session was "
                       "ended and its state is gone; the next call with this session starts a "
                       "new one")
            .arg(kInterruptGraceMs / 1000);
    handOverChannel(true);
    finish(result);
}

void SandboxRun::onChannelEnded(int engineExitCode)
{
    switch (m_phase) {
    case Phase::Starting: {
        m_startDeadline.stop();
        const QString cause = m_services.runtime().explainFailure(rawEngineDiagnostics());
        if (!cause.isEmpty()) {
            handOverChannel(true);
            failWithEngineError(cause);
            return;
        }
        if (engineExitCode == ContainerAcquisition::kEngineFailureExitCode && !m_warm) {
            handOverChannel(false);
            m_phase = Phase::CheckingImage;
            m_acquisition->explainEngineFailure(engineDiagnostics());
            return;
        }
        [[fallthrough]];
    }
    case Phase::Running: {
        const QString code =
            engineExitCode >= 0
                ? QStringLiteral("%1 exit code %2")
                      .arg(m_services.runtime().name())
                      .arg(engineExitCode)
                : QStringLiteral("%1: its connection closed").arg(m_services.runtime().name());
        const QString diagnostics = engineDiagnostics();
        handOverChannel(true);
        // Under gVisor the launcher cannot see the memory limit: the host applies it to gVisor's
        // whole sandbox, whose every process it stops at once, and no engine here says so
        // afterwards (Podman 4.3 records no out-of-memory kill on cgroup v1).
        const SandboxPolicy& policy = m_services.policy();
        const QString gvisorNote =
            policy.isolationFor(m_request.language) == Isolation::Gvisor
                ? QStringLiteral(". Under gVisor this is also how a program that needs more than "
                                 "its memory limit (%1) ends: the host stops gVisor's whole "
                                 "sandbox")
                      .arg(ByteSize::forPeople(policy.memoryBytes))
                : QString();
        failWithEngineError(
            QStringLiteral("The sandbox container ended before the program finished (%1): it was "
                           "killed or removed from outside, or the engine failed%2%3")
                .arg(code, gvisorNote, diagnostics));
        return;
    }
    case Phase::Interrupting: {
        m_interruptGrace.stop();
        ExecutionResult result = collectedResult();
        result.outcome = m_stopReason;
        result.exitCode = kKilledExitCode;
        result.sessionNote = QStringLiteral("the session ended while its cell was being "
                                            "interrupted, and its state is gone");
        handOverChannel(false);
        finish(result);
        return;
    }
    case Phase::Idle:
    case Phase::Queued:
    case Phase::CheckingImage:
    case Phase::Stopping:
    case Phase::Done:
        return;
    }
}

void SandboxRun::cancel()
{
    switch (m_phase) {
    case Phase::Idle:
    case Phase::Queued:
    case Phase::CheckingImage: {
        leaveQueue();
        m_acquisition->abandon();
        ExecutionResult result;
        result.outcome = ExecutionResult::Outcome::Cancelled;
        finish(result);
        return;
    }
    case Phase::Starting:
    case Phase::Running:
        stop(ExecutionResult::Outcome::Cancelled);
        return;
    case Phase::Interrupting:
    case Phase::Stopping:
    case Phase::Done:
        return;
    }
}

void SandboxRun::stop(ExecutionResult::Outcome reason)
{
    if (m_phase != Phase::Running && m_phase != Phase::Starting)
        return;
    // A session's cell is interrupted first: the session keeps its state if the cell stops.
    if (m_channel && m_channel->interrupt()) {
        m_phase = Phase::Interrupting;
        m_stopReason = reason;
        m_deadline.stop();
        m_startDeadline.stop();
        m_durationMs = m_clock.isValid() ? m_clock.elapsed() : 0;
        m_interruptGrace.start(kInterruptGraceMs);
        return;
    }
    if (m_forSession && m_channel && m_phase == Phase::Starting) {
        // A cell still waiting for its session to start was never sent: it gives the session
        // back, and nothing of the session's is stopped or lost.
        m_phase = Phase::Stopping;
        m_deadline.stop();
        m_startDeadline.stop();
        ExecutionResult result = collectedResult();
        result.outcome = reason;
        handOverChannel(false);
        finish(result);
        return;
    }
    m_phase = Phase::Stopping;
    m_stopReason = reason;
    m_deadline.stop();
    m_startDeadline.stop();
    if (m_clock.isValid())
        m_durationMs = m_clock.elapsed();
    qCInfo(lcSandbox).noquote() << (reason == ExecutionResult::Outcome::TimedOut
                                        ? "deadline reached, removing"
                                        : "cancelled, removing")
                                << m_containerName;
    // Removing the container (not just killing its client) is what stops the program: the
    // container belongs to the engine, not to the process we started.
    const ContainerRuntime& runtime = m_services.runtime();
    m_remove = runtime.newProcess(runtime.forceRemoveArguments(m_containerName), this);
    const auto removed = [this] {
        if (m_phase != Phase::Stopping)
            return;
        m_remove->deleteLater();
        ExecutionResult result = collectedResult();
        result.outcome = m_stopReason;
        result.exitCode = kKilledExitCode;
        handOverChannel(false);
        finish(result);
    };
    connect(m_remove, &QProcess::finished, this, removed);
    connect(m_remove, &QProcess::errorOccurred, this, [removed](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            removed();
    });
    m_remove->start();
}

void SandboxRun::failWithEngineError(const QString& message, const QStringList& unenforcedLimits)
{
    if (m_phase == Phase::Done)
        return;
    qCWarning(lcSandbox).noquote() << message;
    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::EngineError;
    result.engineError = message;
    result.unenforcedLimits = unenforcedLimits;
    finish(result);
}

void SandboxRun::finish(ExecutionResult result)
{
    if (m_phase == Phase::Done)
        return;
    m_phase = Phase::Done;
    result.sessionCell = m_cellNumber;
    m_deadline.stop();
    m_startDeadline.stop();
    m_queueDeadline.stop();
    if (m_admitted)
        m_services.runEnded(m_forSession);
    result.connections = endEgress();
    result.connectionsNotListed = m_connectionsNotRecorded;
    // The slot goes to the next run in the queue: this run's program has ended, and its
    // container's teardown (off the call's path) no longer runs a program.
    leaveQueue();
    Q_EMIT finished(result);
}

void SandboxRun::serveEgress(EgressEndpoint* endpoint)
{
    if (!endpoint)
        return;
    // A pooled start that falls back to a cold one keeps the run's proxy and its counts.
    if (!m_egress) {
        m_egress = m_services.newEgressProxy(this);
        if (!m_egress)
            return;
        m_egress->setRunLabel(egressRunLabel());
        connect(m_egress, &EgressProxy::connectionEnded, this,
                [this](const EgressConnection& connection) {
                    if (m_connections.size() < kMaxConnectionRecords)
                        m_connections.append(connection);
                    else
                        ++m_connectionsNotRecorded;
                });
    }
    m_egressEndpoint = endpoint;
    endpoint->setProxy(m_egress);
}

QString SandboxRun::egressRunLabel() const
{
    // The code's first line that says something, cut short: what the person recognises.
    QString firstLine;
    for (const QByteArray& line : m_request.code.split('\n')) {
        firstLine = QString::fromUtf8(line).trimmed();
        if (!firstLine.isEmpty() && !firstLine.startsWith(u'#') && !firstLine.startsWith(u"//"))
            break;
    }
    if (firstLine.size() > 80)
        firstLine = firstLine.left(79) + u'…';
    const QString what =
        m_cellNumber > 0
            ? QStringLiteral("%1 session, cell %2")
                  .arg(LanguageTraits::displayName(m_request.language))
                  .arg(m_cellNumber)
            : QStringLiteral("%1 run").arg(LanguageTraits::displayName(m_request.language));
    return QStringLiteral("%1 started %2: %3")
        .arg(what, QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), firstLine);
}

QList<EgressConnection> SandboxRun::endEgress()
{
    // A session's container outlives the cell: nothing it opens later is this run's, or goes.
    if (m_egressEndpoint)
        m_egressEndpoint->setProxy(nullptr);
    if (m_egress)
        m_egress->closeAll(QStringLiteral("cut when the program ended"));
    return m_connections;
}

void SandboxRun::handOverChannel(bool removeContainer)
{
    if (!m_channel)
        return;
    m_lastEngineDiagnostics =
        std::exchange(m_channel, nullptr)->release(m_services.reaper(), removeContainer, this);
}

ExecutionResult SandboxRun::collectedResult() const
{
    ExecutionResult result;
    result.durationMs = m_durationMs;
    result.stdoutBytes = m_stdout.data();
    result.stderrBytes = m_stderr.data();
    // The launcher drops what passes the cap and counts it only in its exit frame, which a
    // program stopped at its deadline (or cancelled) never sends: a full buffer says it then.
    result.stdoutTruncated = m_stdout.truncated() || m_stdout.isFull();
    result.stderrTruncated = m_stderr.truncated() || m_stderr.isFull();
    return result;
}

QString SandboxRun::engineMissingMessage(const QString& processError) const
{
    return m_services.runtime().notStartedMessage(processError);
}

QString SandboxRun::unenforcedLimitsMessage(const QStringList& limits) const
{
    return QStringLiteral(
               "The program was not run: the container engine %1 accepted this sandbox's %2 "
               "limit%3 but does not enforce %4 (its cgroup shows no such limit); rootless Podman "
               "on a cgroup v1 system, for one, ignores every resource limit. To fix it, run the "
               "engine with cgroup v2 and systemd (most current distributions; on older ones "
               "boot with systemd.unified_cgroup_hierarchy=1), or use rootful Podman or Docker; "
               "or accept sandboxes without these limits with --allow-unlimited (recorded with "
               "each run)%5")
        .arg(m_services.runtime().name(),
             limits.isEmpty() ? QStringLiteral("resource") : limits.join(QStringLiteral(", ")),
             limits.size() > 1 ? QStringLiteral("s") : QString(),
             limits.size() > 1 ? QStringLiteral("them") : QStringLiteral("it"),
             engineDiagnostics());
}

QByteArray SandboxRun::rawEngineDiagnostics() const
{
    return m_channel ? m_channel->engineDiagnostics() : m_lastEngineDiagnostics;
}

QString SandboxRun::engineDiagnostics() const
{
    const QString text = QString::fromUtf8(rawEngineDiagnostics()).trimmed();
    return text.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + text;
}

} // namespace csm
