#include "sandbox/InterpreterSession.h"

#include "core/Logging.h"
#include "runtime/ContainerRuntime.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/EgressEndpoint.h"
#include "sandbox/InterpreterCellChannel.h"
#include "sandbox/LauncherExitStatus.h"
#include "sandbox/WarmContainerChannel.h"

#include <QProcess>

namespace csm {

namespace {
constexpr qint64 kEngineStderrCap = 16 * 1024;
} // namespace

InterpreterSession::InterpreterSession(const ContainerRuntime& runtime, const ContainerSpec& spec,
                                       std::shared_ptr<const SandboxSecrets> secrets,
                                       ContainerReaper& reaper, QObject* parent)
    : QObject(parent)
    , m_runtime(runtime)
    , m_reaper(reaper)
    , m_containerName(spec.name)
    , m_secrets(std::move(secrets))
    , m_client(runtime.newRunProcess(spec, this))
    , m_spec(spec)
    , m_engineStderr(kEngineStderrCap)
{
    connect(m_client, &QProcess::readyReadStandardOutput, this,
            [this] { onOutput(m_client->readAllStandardOutput()); });
    connect(m_client, &QProcess::readyReadStandardError, this,
            [this] { m_engineStderr.append(m_client->readAllStandardError()); });
    connect(m_client, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            finish(QStringLiteral("the container engine %1 could not be started: %2")
                       .arg(m_runtime.name(), m_client->errorString()));
        }
    });
    connect(m_client, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        onClientEnded(status == QProcess::NormalExit ? exitCode : -1);
    });
}

InterpreterSession::InterpreterSession(const ContainerRuntime& runtime,
                                       WarmContainerChannel* pooled, ContainerReaper& reaper,
                                       QObject* parent)
    : QObject(parent)
    , m_runtime(runtime)
    , m_reaper(reaper)
    , m_containerName(pooled->containerName())
    , m_secrets(pooled->secrets())
    , m_pooled(pooled)
    , m_engineStderr(kEngineStderrCap)
{
    pooled->setParent(this);
    connect(pooled, &ContainerChannel::framesReceived, this, &InterpreterSession::onOutput);
    connect(pooled, &ContainerChannel::ended, this, &InterpreterSession::onClientEnded);
    connect(pooled, &ContainerChannel::failedToStart, this, [this](const QString& reason) {
        end(QStringLiteral("its container could not be started: %1").arg(reason));
    });
}

InterpreterSession::~InterpreterSession()
{
    // The server is going down: the reaper removes the container.
    releaseContainer();
}

EgressEndpoint* InterpreterSession::egressEndpoint() const
{
    return m_pooled ? m_pooled->egressEndpoint() : m_egress;
}

void InterpreterSession::setEgressEndpoint(EgressEndpoint* endpoint)
{
    delete m_egress;
    m_egress = endpoint;
    if (endpoint)
        endpoint->setParent(this);
}

void InterpreterSession::setFiles(const SandboxFiles& files)
{
    if (!m_client || m_client->state() != QProcess::NotRunning)
        return;
    m_spec.files = files;
    m_client->setArguments(m_runtime.runArguments(m_spec));
}

void InterpreterSession::start()
{
    if (m_state == State::Ended)
        return; // ended while it waited to start (the settings changed): nothing to start
    m_sinceStart.start();
    m_startedAt = QDateTime::currentDateTimeUtc();
    markActive();
    if (m_client) {
        m_client->start();
        return;
    }
    if (m_pooled->isReady()) {
        m_state = State::Idle;
        QMetaObject::invokeMethod(this, &InterpreterSession::ready, Qt::QueuedConnection);
    }
    // In use from now on: what its launcher sends (the ready frame, if it has not come yet)
    // comes to us.
    m_pooled->sendRequest({});
}

QByteArray InterpreterSession::engineDiagnostics() const
{
    return m_pooled ? m_pooled->engineDiagnostics() : m_engineStderr.data();
}

void InterpreterSession::write(const QByteArray& bytes)
{
    if (m_client)
        m_client->write(bytes);
    else if (m_pooled)
        m_pooled->sendRequest(bytes);
}

void InterpreterSession::releaseContainer()
{
    if (m_client) {
        QProcess* client = m_client;
        m_client = nullptr;
        client->disconnect(this);
        client->closeWriteChannel();
        m_reaper.adoptAndRemove(client, m_containerName);
    }
    if (m_pooled) {
        WarmContainerChannel* pooled = m_pooled;
        m_pooled = nullptr;
        pooled->disconnect(this);
        pooled->handOver(m_reaper, true);
        pooled->deleteLater();
    }
}

ContainerChannel* InterpreterSession::openCell(QObject* parent)
{
    if (m_state == State::Ended || m_cell)
        return nullptr;
    auto* cell = new InterpreterCellChannel(*this, parent);
    m_cell = cell;
    if (m_state == State::Idle)
        m_state = State::Busy;
    return cell;
}

void InterpreterSession::markActive()
{
    m_sinceLastCell.start();
    m_lastActiveAt = QDateTime::currentDateTimeUtc();
}

void InterpreterSession::sendCell(const QByteArray& request)
{
    if ((!m_client && !m_pooled) || m_state == State::Ended)
        return;
    ++m_cells;
    markActive();
    write(QByteArray("C") + request);
}

void InterpreterSession::interruptCell()
{
    if (m_state == State::Busy)
        write("I");
}

void InterpreterSession::closeCell(InterpreterCellChannel* cell)
{
    if (m_cell != cell)
        return;
    m_cell = nullptr;
    markActive();
    if (m_state == State::Busy)
        m_state = State::Idle;
    Q_EMIT cellClosed();
}

void InterpreterSession::onOutput(const QByteArray& bytes)
{
    if (m_state != State::Starting) {
        if (m_cell)
            m_cell->deliver(bytes);
        // Read along for the exit frame that says the interpreter died with its cell: the
        // session ends now, not when the engine client notices, so no next cell goes to it.
        m_afterReady.append(bytes);
        while (const auto frame = m_afterReady.next()) {
            if (frame->type != LauncherStreamDecoder::Frame::Type::Exit)
                continue;
            const auto status = LauncherExitStatus::parse(frame->payload);
            if (status && status->memoryBytes)
                m_memoryBytes = *status->memoryBytes;
            if (status && !status->sessionAlive.value_or(true)) {
                end(QStringLiteral("its interpreter ended (%1)")
                        .arg(status->signal ? QStringLiteral("signal %1").arg(status->signal)
                                            : QStringLiteral("exit code %1").arg(status->exitCode)),
                    true);
                return;
            }
        }
        return;
    }
    m_beforeReady.append(bytes);
    while (const auto frame = m_beforeReady.next()) {
        switch (frame->type) {
        case LauncherStreamDecoder::Frame::Type::Up:
            continue; // an attached pooled container's first word: the next says ready
        case LauncherStreamDecoder::Frame::Type::Ready:
            m_state = m_cell ? State::Busy : State::Idle;
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

void InterpreterSession::onClientEnded(int exitCode)
{
    if (m_state == State::Ended)
        return;
    const QByteArray engineSaid = engineDiagnostics();
    const QString said = m_runtime.explainFailure(engineSaid);
    const QString diagnostics = QString::fromUtf8(engineSaid).trimmed().left(400);
    // A pooled container has no engine client whose exit code would tell more.
    QString reason = m_client ? QStringLiteral("its container ended (%1 exit code %2)")
                                    .arg(m_runtime.name())
                                    .arg(exitCode)
                              : QStringLiteral("its container ended");
    if (!said.isEmpty())
        reason += QStringLiteral(": ") + said;
    else if (!diagnostics.isEmpty() && m_state == State::Starting)
        reason += QStringLiteral(": ") + diagnostics;
    if (m_client) {
        m_client->deleteLater();
        m_client = nullptr;
    } else {
        // The launcher is gone; whatever is left of the container goes too.
        releaseContainer();
    }
    if (m_cell)
        m_cell->sessionEnded(reason, exitCode);
    finish(reason);
}

void InterpreterSession::end(const QString& reason, bool toldByCell)
{
    if (m_state == State::Ended)
        return;
    m_endedWithCell = toldByCell;
    qCInfo(lcSandbox).noquote() << "session" << m_containerName << "ends:" << reason;
    releaseContainer();
    if (m_cell)
        m_cell->sessionEnded(reason, -1);
    finish(reason);
}

void InterpreterSession::finish(const QString& reason)
{
    if (m_state == State::Ended)
        return;
    m_state = State::Ended;
    m_endReason = reason;
    Q_EMIT ended(reason);
}

} // namespace csm
