#pragma once

#include "runtime/ContainerSpec.h"
#include "sandbox/ContainerChannel.h"

#include <QElapsedTimer>
#include <QPointer>

class QLocalSocket;
class QProcess;

namespace csm {

class ContainerRuntime;

// A warm pool's container: started detached ahead of any call, its launcher already running the
// interpreter, which waits for its program. The server's connection to the launcher's socket is
// the only thing attached to it; no engine client waits beside it.
class WarmContainerChannel final : public ContainerChannel
{
    Q_OBJECT

public:
    // How long the engine may take to start the container and its launcher to listen.
    static constexpr int kReadyTimeoutMs = 30'000;

    // `spec.ioDirectory` is the host folder the launcher's socket appears in.
    WarmContainerChannel(const ContainerRuntime& runtime, ContainerSpec spec,
                         std::shared_ptr<const SandboxSecrets> secrets, QObject* parent = nullptr);
    ~WarmContainerChannel() override;

    // Starts the container; ready() or startFailed() follows.
    void start();

    void sendRequest(const QByteArray& request) override;
    // What the engine said while starting the container (warnings, on success).
    QByteArray engineDiagnostics() const override { return m_engineStderr; }
    void handOver(ContainerReaper& reaper, bool removeContainer) override;

Q_SIGNALS:
    void ready();
    void startFailed(const QString& reason);
    // The container ended before it was used (killed from outside, engine restarted).
    void lostWhileIdle();

private:
    void connectToLauncher();
    void fail(const QString& reason);

    const ContainerRuntime& m_runtime;
    ContainerSpec m_spec;
    QPointer<QProcess> m_starter;
    QLocalSocket* m_socket = nullptr;
    QElapsedTimer m_sinceStart;
    QByteArray m_engineStderr;
    bool m_ready = false;
    bool m_inUse = false;
    bool m_handedOver = false;
};

} // namespace csm
