#include "sandbox/ColdContainerChannel.h"

#include "runtime/ContainerRuntime.h"
#include "sandbox/ContainerReaper.h"

#include <utility>

namespace csm {

namespace {
constexpr qint64 kEngineStderrCap = 16 * 1024;
}

ColdContainerChannel::ColdContainerChannel(const ContainerRuntime& runtime,
                                           const ContainerSpec& spec,
                                           std::shared_ptr<const SandboxSecrets> secrets,
                                           QObject* parent)
    : ContainerChannel(spec.name, std::move(secrets), parent)
    , m_client(runtime.newRunProcess(spec, this))
    , m_engineStderr(kEngineStderrCap)
    , m_persistent(spec.session)
{
    connect(m_client, &QProcess::started, this, [this] {
        m_client->write(std::exchange(m_pending, {}));
        if (!m_persistent)
            m_client->closeWriteChannel();
    });
    connect(m_client, &QProcess::readyReadStandardOutput, this,
            [this] { Q_EMIT framesReceived(m_client->readAllStandardOutput()); });
    connect(m_client, &QProcess::readyReadStandardError, this,
            [this] { m_engineStderr.append(m_client->readAllStandardError()); });
    connect(m_client, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        // Write errors (the container ended before reading its program) show in its exit.
        if (error == QProcess::FailedToStart)
            Q_EMIT failedToStart(m_client->errorString());
    });
    connect(m_client, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
        QProcess* client = m_client;
        if (!client)
            return; // handed over: the reaper has it
        // What the engine said first: the run that reads the last frames may quote it, and may
        // hand the client over while it does.
        m_engineStderr.append(client->readAllStandardError());
        const QByteArray rest = client->readAllStandardOutput();
        if (!rest.isEmpty())
            Q_EMIT framesReceived(rest);
        Q_EMIT ended(status == QProcess::NormalExit ? exitCode : -1);
    });
}

ColdContainerChannel::~ColdContainerChannel()
{
    // Never handed over (the server is going down): kill the client rather than wait for it.
    if (m_client && m_client->state() != QProcess::NotRunning) {
        m_client->disconnect(this);
        m_client->kill();
        m_client->waitForFinished(1000);
    }
}

void ColdContainerChannel::sendRequest(const QByteArray& request)
{
    if (!m_client)
        return;
    if (m_client->state() == QProcess::Running) {
        m_client->write(request); // a session's next message
        return;
    }
    m_pending += request;
    if (m_client->state() == QProcess::NotRunning)
        m_client->start();
}

void ColdContainerChannel::handOver(ContainerReaper& reaper, bool removeContainer)
{
    if (!m_client)
        return;
    QProcess* client = m_client;
    m_client = nullptr;
    if (m_persistent && client->state() == QProcess::Running)
        client->closeWriteChannel(); // the launcher's end of input: it winds the session down
    if (removeContainer)
        reaper.adoptAndRemove(client, containerName());
    else
        reaper.adopt(client, containerName());
}

} // namespace csm
