#include "sandbox/InterpreterSession.h"

#include "core/Logging.h"
#include "runtime/ContainerRuntime.h"
#include "sandbox/ContainerChannel.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/LauncherExitStatus.h"

#include <QTimer>

#include <utility>

namespace csm {

InterpreterSession::InterpreterSession(const ContainerRuntime& runtime, QString containerName,
                                       std::shared_ptr<const SandboxSecrets> secrets,
                                       ContainerReaper& reaper, QObject* parent)
    : ContainerChannel(std::move(containerName), std::move(secrets), parent)
    , m_runtime(runtime)
    , m_reaper(reaper)
{
    connect(this, &InterpreterSession::ready, this, [this] {
        if (m_waitingCell)
            sendCell(*std::exchange(m_waitingCell, std::nullopt));
    });
}

InterpreterSession::~InterpreterSession()
{
    // The server is going down: the reaper removes the container.
    releaseContainer();
}

EgressEndpoint* InterpreterSession::egressEndpoint() const
{
    return m_channel ? m_channel->egressEndpoint() : nullptr;
}

void InterpreterSession::start(ContainerChannel* channel, bool alreadyReady)
{
    channel->setParent(this);
    if (m_state == State::Ended) {
        // Ended while it waited to start (the settings changed): nothing to start.
        channel->release(m_reaper, true, this);
        return;
    }
    m_channel = channel;
    connect(channel, &ContainerChannel::framesReceived, this, &InterpreterSession::onOutput);
    connect(channel, &ContainerChannel::ended, this, &InterpreterSession::onChannelEnded);
    connect(channel, &ContainerChannel::failedToStart, this, [this](const QString& reason) {
        end(QStringLiteral("its container could not be started by %1: %2")
                .arg(m_runtime.name(), reason));
    });
    m_sinceStart.start();
    m_startedAt = QDateTime::currentDateTimeUtc();
    markActive();
    if (alreadyReady) {
        m_state = State::Idle;
        QMetaObject::invokeMethod(this, &InterpreterSession::ready, Qt::QueuedConnection);
    }
    // Starts a cold container; a pooled one is in use from now on: what its launcher sends (the
    // ready frame, if it has not come yet) comes to the session.
    channel->sendRequest({});
}

QByteArray InterpreterSession::engineDiagnostics() const
{
    return m_channel ? m_channel->engineDiagnostics() : m_lastEngineDiagnostics;
}

void InterpreterSession::write(const QByteArray& bytes)
{
    if (m_channel)
        m_channel->sendRequest(bytes);
}

void InterpreterSession::releaseContainer(bool removeContainer)
{
    if (!m_channel)
        return;
    // What the engine said stays for the messages of the cell the container ended under.
    m_lastEngineDiagnostics =
        std::exchange(m_channel, nullptr)->release(m_reaper, removeContainer, this);
}

bool InterpreterSession::lendToCell()
{
    if (m_state == State::Ended || m_lent)
        return false;
    m_lent = true;
    m_cellSent = false;
    m_cellExit.reset();
    m_waitingCell.reset();
    if (m_state == State::Idle)
        m_state = State::Busy;
    return true;
}

void InterpreterSession::sendRequest(const QByteArray& request)
{
    if (m_state == State::Ended) {
        QTimer::singleShot(0, this, [this] {
            if (m_lent)
                Q_EMIT failedToStart(m_endReason);
        });
        return;
    }
    if (m_state == State::Starting) {
        m_waitingCell = request;
        return;
    }
    sendCell(request);
}

bool InterpreterSession::interrupt()
{
    if (!m_cellSent)
        return false;
    if (m_state == State::Busy)
        write("I");
    return true;
}

QByteArray InterpreterSession::release(ContainerReaper& reaper, bool removeContainer,
                                       QObject* holder)
{
    const QByteArray said = engineDiagnostics();
    // Detached: what the session's next cells send is not for this one.
    disconnect(holder);
    handOver(reaper, removeContainer);
    return said;
}

void InterpreterSession::handOver(ContainerReaper&, bool removeContainer)
{
    if (!m_lent)
        return;
    closeCell(std::exchange(m_cellExit, std::nullopt));
    if (removeContainer)
        end(QStringLiteral("its cell had to be killed"), true);
}

void InterpreterSession::loseCell(const QString& reason, int engineExitCode)
{
    if (!m_lent)
        return;
    if (m_cellSent)
        Q_EMIT ended(engineExitCode);
    else
        Q_EMIT failedToStart(reason);
}

void InterpreterSession::markActive()
{
    m_sinceLastCell.start();
    m_lastActiveAt = QDateTime::currentDateTimeUtc();
}

void InterpreterSession::sendCell(const QByteArray& request)
{
    if (!m_lent || !m_channel || m_state == State::Ended)
        return;
    m_cellSent = true;
    ++m_cells;
    markActive();
    write(QByteArray("C") + request);
}

void InterpreterSession::closeCell(const std::optional<LauncherExitStatus>& exit)
{
    if (!m_lent)
        return;
    m_lent = false;
    m_waitingCell.reset();
    markActive();
    if (exit && exit->memoryBytes)
        m_memoryBytes = *exit->memoryBytes;
    if (exit && !exit->sessionAlive.value_or(true)) {
        end(QStringLiteral("its interpreter ended (%1)")
                .arg(exit->signal ? QStringLiteral("signal %1").arg(exit->signal)
                                  : QStringLiteral("exit code %1").arg(exit->exitCode)),
            true);
        return;
    }
    if (m_state == State::Busy)
        m_state = State::Idle;
    Q_EMIT cellClosed();
}

void InterpreterSession::onOutput(const QByteArray& bytes)
{
    if (m_state != State::Starting) {
        if (m_lent)
            Q_EMIT framesReceived(bytes);
        return;
    }
    m_beforeReady.append(bytes);
    while (const auto frame = m_beforeReady.next()) {
        switch (frame->type) {
        case LauncherStreamDecoder::Frame::Type::Up:
            continue; // an attached pooled container's first word: the next says ready
        case LauncherStreamDecoder::Frame::Type::Ready:
            m_state = m_lent ? State::Busy : State::Idle;
            markActive();
            Q_EMIT ready();
            return;
        case LauncherStreamDecoder::Frame::Type::Failure:
            end(QStringLiteral("its interpreter could not start: %1")
                    .arg(QString::fromUtf8(frame->payload)));
            return;
        case LauncherStreamDecoder::Frame::Type::LimitsUnenforced:
            end(QStringLiteral("the engine %1 does not enforce the sandbox's limits (%2)")
                    .arg(m_runtime.name(), QString::fromUtf8(frame->payload)));
            return;
        default:
            end(QStringLiteral("its launcher sent an unexpected frame before starting"));
            return;
        }
    }
    if (m_beforeReady.isCorrupt())
        end(QStringLiteral("its launcher sent a corrupt stream (%1)").arg(m_beforeReady.error()));
}

void InterpreterSession::onChannelEnded(int engineExitCode)
{
    if (m_state == State::Ended)
        return;
    const QByteArray engineSaid = engineDiagnostics();
    const QString said = m_runtime.explainFailure(engineSaid);
    const QString diagnostics = QString::fromUtf8(engineSaid).trimmed().left(400);
    // A pooled container has no engine client whose exit code would tell more.
    QString reason = engineExitCode >= 0 ? QStringLiteral("its container ended (%1 exit code %2)")
                                               .arg(m_runtime.name())
                                               .arg(engineExitCode)
                                         : QStringLiteral("its container ended");
    if (!said.isEmpty())
        reason += QStringLiteral(": ") + said;
    else if (!diagnostics.isEmpty() && m_state == State::Starting)
        reason += QStringLiteral(": ") + diagnostics;
    // The launcher is gone. A cold container went with its engine client (`run --rm`);
    // whatever is left of a pooled one goes too.
    releaseContainer(engineExitCode < 0);
    // Over before its cell hears of it: the cell's run gives the session back at once, and
    // must not end it a second time, for another reason.
    finish(reason);
    loseCell(reason, engineExitCode);
}

void InterpreterSession::end(const QString& reason, bool toldByCell)
{
    if (m_state == State::Ended)
        return;
    m_endedWithCell = toldByCell;
    qCInfo(lcSandbox).noquote() << "session" << containerName() << "ends:" << reason;
    releaseContainer();
    finish(reason);
    loseCell(reason, -1);
}

void InterpreterSession::finish(const QString& reason)
{
    if (m_state == State::Ended)
        return;
    m_state = State::Ended;
    m_endReason = reason;
    Q_EMIT closed(reason);
}

} // namespace csm
