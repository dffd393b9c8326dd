#include "sandbox/WarmContainerChannel.h"

#include "csm/launcher_protocol.h"
#include "runtime/ContainerRuntime.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/EgressEndpoint.h"

#include <QDir>
#include <QFile>
#include <QLocalSocket>
#include <QProcess>
#include <QtEndian>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace csm {

namespace {
constexpr int kConnectRetryMs = 10;
}

WarmContainerChannel::WarmContainerChannel(const ContainerRuntime& runtime, ContainerSpec spec,
                                           std::shared_ptr<const SandboxSecrets> secrets,
                                           QObject* parent)
    : ContainerChannel(spec.name, std::move(secrets), parent)
    , m_runtime(runtime)
    , m_spec(std::move(spec))
    , m_attached(m_spec.ioDirectory.isEmpty())
{
    m_readyDeadline.setSingleShot(true);
    connect(&m_readyDeadline, &QTimer::timeout, this, [this] {
        // A call that took it has its own deadline: only a waiting container is given up here.
        if (!m_inUse)
            fail(QStringLiteral("it was not ready after %1 s").arg(kReadyTimeoutMs / 1000));
    });
    if (m_attached)
        return;
    m_socket = new QLocalSocket(this);
    connect(m_socket, &QLocalSocket::connected, this, &WarmContainerChannel::onConnected);
    connect(m_socket, &QLocalSocket::readyRead, this, [this] { onBytes(m_socket->readAll()); });
    connect(m_socket, &QLocalSocket::disconnected, this, [this] {
        const QByteArray rest = m_socket->readAll();
        if (!rest.isEmpty())
            onBytes(rest);
        if (m_inUse)
            Q_EMIT ended(-1);
        else
            Q_EMIT lostWhileIdle();
    });
    connect(
        m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError error) {
            if (m_connected || m_handedOver)
                return;
            // Not listening yet: the launcher is still starting.
            if ((error == QLocalSocket::ServerNotFoundError ||
                 error == QLocalSocket::ConnectionRefusedError) &&
                m_sinceStart.elapsed() < kReadyTimeoutMs) {
                QTimer::singleShot(kConnectRetryMs, this, &WarmContainerChannel::connectToLauncher);
                return;
            }
            fail(QStringLiteral("its launcher did not listen: %1").arg(m_socket->errorString()));
        });
}

void WarmContainerChannel::onConnected()
{
    if (m_attached) {
        // The launcher runs (its up frame): the engine has made the container. Its egress
        // carrier starts now, off the call's path (a remote engine's container in proxy mode).
        m_connected = true;
        if (EgressEndpoint* endpoint = egressEndpoint())
            endpoint->startCarrier();
        Q_EMIT up(m_sinceStart.elapsed());
        return;
    }
    // The socket has served its purpose (the launcher unlinks it once it accepts). Close the
    // folder to the sandbox before any program runs: it is on the host's disk, and a program
    // could otherwise fill it.
    QFile::setPermissions(m_spec.ioDirectory, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
    m_connected = true;
    Q_EMIT up(m_sinceStart.elapsed());
    if (!m_pendingRequest.isEmpty())
        m_socket->write(std::exchange(m_pendingRequest, {}));
}

void WarmContainerChannel::onBytes(const QByteArray& bytes)
{
    if (m_inUse) {
        Q_EMIT framesReceived(bytes);
        return;
    }
    m_beforeUse.append(bytes);
    while (const auto frame = m_beforeUse.next()) {
        if (frame->type == LauncherStreamDecoder::Frame::Type::Up) {
            if (m_attached && !m_connected)
                onConnected();
            continue;
        }
        if (frame->type == LauncherStreamDecoder::Frame::Type::Ready) {
            if (m_attached && !m_connected)
                onConnected(); // a launcher that says nothing before: up now
            m_ready = true;
            m_readyDeadline.stop();
            Q_EMIT ready();
            continue;
        }
        // Anything else before a request is a launcher that failed (or is not ours).
        fail(frame->type == LauncherStreamDecoder::Frame::Type::Failure
                 ? QStringLiteral("its launcher failed: %1").arg(QString::fromUtf8(frame->payload))
                 : QStringLiteral("its launcher sent an unexpected frame before any request"));
        return;
    }
    if (m_beforeUse.isCorrupt())
        fail(QStringLiteral("its launcher sent a corrupt stream (%1)").arg(m_beforeUse.error()));
}

WarmContainerChannel::~WarmContainerChannel()
{
    if (m_attached) {
        // Never handed over (the server is going down): the client goes with us.
        if (m_starter && m_starter->state() != QProcess::NotRunning) {
            m_starter->disconnect(this);
            m_starter->kill();
            m_starter->waitForFinished(1000);
        }
        return;
    }
    QFile::setPermissions(m_spec.ioDirectory,
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QDir(m_spec.ioDirectory).removeRecursively();
}

void WarmContainerChannel::start()
{
    m_sinceStart.start();
    m_readyDeadline.start(kReadyTimeoutMs);
    m_starter = m_runtime.newRunProcess(m_spec, this);
    connect(m_starter, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(m_starter->errorString());
    });
    if (m_attached) {
        connect(m_starter, &QProcess::readyReadStandardOutput, this,
                [this] { onBytes(m_starter->readAllStandardOutput()); });
        connect(m_starter, &QProcess::readyReadStandardError, this, [this] {
            const QByteArray bytes = m_starter->readAllStandardError();
            m_engineStderr.append(
                bytes.left(std::max<qsizetype>(0, 16 * 1024 - m_engineStderr.size())));
        });
        connect(m_starter, &QProcess::finished, this, &WarmContainerChannel::onAttachedClientEnded);
        m_starter->start();
        return;
    }
    connect(m_starter, &QProcess::finished, this,
            [this](int exitCode, QProcess::ExitStatus status) {
                m_engineStderr = m_starter->readAllStandardError().left(16 * 1024);
                const QString diagnostics = QString::fromUtf8(m_engineStderr).trimmed();
                m_starter->deleteLater();
                if (status != QProcess::NormalExit || exitCode != 0) {
                    const QString cause = m_runtime.explainFailure(m_engineStderr);
                    fail(QStringLiteral("%1 exited with %2: %3")
                             .arg(m_runtime.name())
                             .arg(exitCode)
                             .arg(cause.isEmpty() ? diagnostics : cause));
                    return;
                }
                connectToLauncher();
            });
    m_starter->start();
}

void WarmContainerChannel::onAttachedClientEnded(int exitCode, QProcess::ExitStatus status)
{
    const QByteArray rest = m_starter->readAllStandardOutput();
    if (!rest.isEmpty())
        onBytes(rest);
    m_engineStderr.append(m_starter->readAllStandardError().left(16 * 1024));
    if (m_handedOver)
        return;
    if (m_inUse) {
        Q_EMIT ended(status == QProcess::NormalExit ? exitCode : -1);
        return;
    }
    if (m_ready) {
        Q_EMIT lostWhileIdle();
        return;
    }
    const QString cause = m_runtime.explainFailure(m_engineStderr);
    fail(QStringLiteral("%1 exited with %2: %3")
             .arg(m_runtime.name())
             .arg(exitCode)
             .arg(cause.isEmpty() ? QString::fromUtf8(m_engineStderr).trimmed() : cause));
}

void WarmContainerChannel::connectToLauncher()
{
    if (m_handedOver)
        return;
    m_socket->connectToServer(m_spec.ioDirectory + QStringLiteral("/sock"));
}

void WarmContainerChannel::fail(const QString& reason)
{
    if (m_handedOver)
        return;
    m_readyDeadline.stop();
    Q_EMIT failedToStart(reason);
}

void WarmContainerChannel::sendRequest(const QByteArray& request)
{
    m_inUse = true;
    m_readyDeadline.stop();
    if (m_attached)
        m_starter->write(request); // the engine client holds it until the container reads it
    else if (m_connected)
        m_socket->write(request);
    else
        m_pendingRequest = request;
    // Part of a frame that came before the request belongs to the run's stream now.
    if (const QByteArray early = m_beforeUse.takePending(); !early.isEmpty())
        Q_EMIT framesReceived(early);
}

void WarmContainerChannel::handOver(ContainerReaper& reaper, bool removeContainer)
{
    if (m_handedOver)
        return;
    m_handedOver = true;
    m_readyDeadline.stop();
    if (m_attached) {
        QProcess* client = std::exchange(m_starter, nullptr);
        if (!client)
            return;
        // End of its stdin: the launcher ends when it is waiting, and the client with it.
        client->closeWriteChannel();
        if (!removeContainer)
            reaper.adopt(client, containerName());
        else if (m_connected || m_inUse)
            // Up, or holding a run's request already (a run took it while it started): only a
            // removal stops that program from running once the container comes up.
            reaper.adoptAndRemove(client, containerName());
        else
            // Idle and still being made by the engine: the end of stdin ends it once it runs. A
            // removal now would race the engine's creation, and Podman 4's service can lose that
            // race half-way, keeping a container it lists but can no longer remove.
            reaper.adoptThenRemove(client, containerName());
        return;
    }
    m_socket->disconnect(this);
    m_socket->abort();
    if (m_starter && m_starter->state() != QProcess::NotRunning) {
        // Still being created: it can only be removed once the engine is done creating it.
        reaper.adoptThenRemove(m_starter, containerName());
        m_starter = nullptr;
    } else if (removeContainer) {
        reaper.remove(containerName());
    }
    // Otherwise the program ended and the container goes away by itself (--rm).
}

} // namespace csm
