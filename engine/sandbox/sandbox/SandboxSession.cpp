#include "sandbox/SandboxSession.h"

#include "core/Logging.h"
#include "runtime/ContainerRuntime.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/LauncherExitStatus.h"
#include "sandbox/SessionCellChannel.h"

#include <QProcess>

namespace csm {

namespace {
constexpr qint64 kEngineStderrCap = 16 * 1024;
} // namespace

SandboxSession::SandboxSession(const ContainerRuntime& runtime, const ContainerSpec& spec,
                               std::shared_ptr<const SandboxSecrets> secrets,
                               ContainerReaper& reaper, QObject* parent)
    : QObject(parent)
    , m_runtime(runtime)
    , m_reaper(reaper)
    , m_containerName(spec.name)
    , m_secrets(std::move(secrets))
    , m_client(runtime.newRunProcess(spec, this))
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

SandboxSession::~SandboxSession()
{
    if (m_client) {
        // The server is going down: the reaper removes the container.
        m_client->disconnect(this);
        m_client->closeWriteChannel();
        m_reaper.adoptAndRemove(m_client, m_containerName);
    }
}

void SandboxSession::start()
{
    m_sinceStart.start();
    m_startedAt = QDateTime::currentDateTimeUtc();
    markActive();
    m_client->start();
}

ContainerChannel* SandboxSession::openCell(QObject* parent)
{
    if (m_state == State::Ended || m_cell)
        return nullptr;
    auto* cell = new SessionCellChannel(*this, parent);
    m_cell = cell;
    if (m_state == State::Idle)
        m_state = State::Busy;
    return cell;
}

void SandboxSession::markActive()
{
    m_sinceLastCell.start();
    m_lastActiveAt = QDateTime::currentDateTimeUtc();
}

void SandboxSession::sendCell(const QByteArray& request)
{
    if (!m_client || m_state == State::Ended)
        return;
    ++m_cells;
    markActive();
    m_client->write(QByteArray("C") + request);
}

void SandboxSession::interruptCell()
{
    if (m_client && m_state == State::Busy)
        m_client->write("I");
}

void SandboxSession::closeCell(SessionCellChannel* cell)
{
    if (m_cell != cell)
        return;
    m_cell = nullptr;
    markActive();
    if (m_state == State::Busy)
        m_state = State::Idle;
    Q_EMIT cellClosed();
}

void SandboxSession::onOutput(const QByteArray& bytes)
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

void SandboxSession::onClientEnded(int exitCode)
{
    if (m_state == State::Ended)
        return;
    const QString said = m_runtime.explainFailure(m_engineStderr.data());
    const QString diagnostics = QString::fromUtf8(m_engineStderr.data()).trimmed().left(400);
    QString reason =
        QStringLiteral("its container ended (%1 exit code %2)").arg(m_runtime.name()).arg(exitCode);
    if (!said.isEmpty())
        reason += QStringLiteral(": ") + said;
    else if (!diagnostics.isEmpty() && m_state == State::Starting)
        reason += QStringLiteral(": ") + diagnostics;
    m_client->deleteLater();
    m_client = nullptr;
    if (m_cell)
        m_cell->sessionEnded(reason, exitCode);
    finish(reason);
}

void SandboxSession::end(const QString& reason, bool toldByCell)
{
    if (m_state == State::Ended)
        return;
    m_endedWithCell = toldByCell;
    qCInfo(lcSandbox).noquote() << "session" << m_containerName << "ends:" << reason;
    if (m_client) {
        QProcess* client = m_client;
        m_client = nullptr;
        client->disconnect(this);
        client->closeWriteChannel();
        m_reaper.adoptAndRemove(client, m_containerName);
    }
    if (m_cell)
        m_cell->sessionEnded(reason, -1);
    finish(reason);
}

void SandboxSession::finish(const QString& reason)
{
    if (m_state == State::Ended)
        return;
    m_state = State::Ended;
    m_endReason = reason;
    Q_EMIT ended(reason);
}

} // namespace csm
