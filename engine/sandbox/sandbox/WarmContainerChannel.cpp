#include "sandbox/WarmContainerChannel.h"

#include "csm/launcher_protocol.h"
#include "runtime/ContainerRuntime.h"
#include "sandbox/ContainerReaper.h"

#include <QDir>
#include <QFile>
#include <QLocalSocket>
#include <QProcess>
#include <QtEndian>
#include <QTimer>

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
    , m_socket(new QLocalSocket(this))
{
    connect(m_socket, &QLocalSocket::connected, this, [this] {
        // The socket has served its purpose (the launcher unlinks it once it accepts). Close the
        // folder to the sandbox before any program runs: it is on the host's disk, and a program
        // could otherwise fill it.
        QFile::setPermissions(m_spec.ioDirectory, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        m_ready = true;
        Q_EMIT ready();
    });
    connect(m_socket, &QLocalSocket::readyRead, this,
            [this] { Q_EMIT framesReceived(m_socket->readAll()); });
    connect(m_socket, &QLocalSocket::disconnected, this, [this] {
        const QByteArray rest = m_socket->readAll();
        if (!rest.isEmpty())
            Q_EMIT framesReceived(rest);
        if (m_inUse)
            Q_EMIT ended(-1);
        else if (m_ready)
            Q_EMIT lostWhileIdle();
    });
    connect(
        m_socket, &QLocalSocket::errorOccurred, this, [this](QLocalSocket::LocalSocketError error) {
            if (m_ready || m_handedOver)
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

WarmContainerChannel::~WarmContainerChannel()
{
    QFile::setPermissions(m_spec.ioDirectory,
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QDir(m_spec.ioDirectory).removeRecursively();
}

void WarmContainerChannel::start()
{
    m_sinceStart.start();
    m_starter = m_runtime.newRunProcess(m_spec, this);
    connect(m_starter, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            fail(m_starter->errorString());
    });
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
    Q_EMIT startFailed(reason);
}

void WarmContainerChannel::sendRequest(const QByteArray& request)
{
    m_inUse = true;
    m_socket->write(request);
}

void WarmContainerChannel::handOver(ContainerReaper& reaper, bool removeContainer)
{
    if (m_handedOver)
        return;
    m_handedOver = true;
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
