#pragma once

#include "runtime/ContainerSpec.h"
#include "sandbox/ContainerChannel.h"
#include "sandbox/LauncherStreamDecoder.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QProcess>
#include <QTimer>

class QLocalSocket;

namespace csm {

class ContainerRuntime;

// A warm pool's container: started ahead of any call, its launcher already running the
// interpreter, which waits for its program. On a local engine it runs detached, and the server's
// connection to the launcher's socket (in a host folder) is the only thing attached to it; no
// engine client waits beside it. A remote engine's containers see no host folder: the engine
// client stays attached, and the launcher talks on its stdin and stdout (spec.ioDirectory empty).
//
// It goes through three stages: starting (the engine creates it), up (connected to its launcher;
// the interpreter may still be importing modules) and ready (the launcher's ready frame). A call
// may take it at any stage: a request sent before it is up waits here until it is, and one sent
// while the interpreter imports makes it stop importing and run the program.
class WarmContainerChannel final : public ContainerChannel
{
    Q_OBJECT

public:
    // How long the engine may take to start the container and its interpreter to get ready.
    static constexpr int kReadyTimeoutMs = 30'000;

    // `spec.ioDirectory` is the host folder the launcher's socket appears in; empty: attached.
    WarmContainerChannel(const ContainerRuntime& runtime, ContainerSpec spec,
                         std::shared_ptr<const SandboxSecrets> secrets, QObject* parent = nullptr);
    ~WarmContainerChannel() override;

    // Starts the container; up() and ready(), or failedToStart(), follow.
    void start();

    // Since start().
    qint64 elapsedMs() const { return m_sinceStart.isValid() ? m_sinceStart.elapsed() : 0; }
    bool isUp() const { return m_connected; }
    bool isReady() const { return m_ready; }

    void sendRequest(const QByteArray& request) override;
    // What the engine said while starting the container (warnings, on success).
    QByteArray engineDiagnostics() const override { return m_engineStderr; }
    void handOver(ContainerReaper& reaper, bool removeContainer) override;

Q_SIGNALS:
    // Connected to the launcher, `afterMs` after start().
    void up(qint64 afterMs);
    // The interpreter is ready for its program (not emitted once the channel is in use).
    void ready();
    // The container ended before it was used (killed from outside, engine restarted).
    void lostWhileIdle();

private:
    void connectToLauncher();
    void onAttachedClientEnded(int exitCode, QProcess::ExitStatus status);
    void onConnected();
    void onBytes(const QByteArray& bytes);
    void fail(const QString& reason);

    const ContainerRuntime& m_runtime;
    ContainerSpec m_spec;
    QPointer<QProcess> m_starter;
    // Null when attached: m_starter is the way in then, for the container's whole life.
    QLocalSocket* m_socket = nullptr;
    QElapsedTimer m_sinceStart;
    QTimer m_readyDeadline;
    QByteArray m_engineStderr;
    // Before the channel is in use, what the launcher sends is for us: the ready frame.
    LauncherStreamDecoder m_beforeUse;
    // A request sent before the launcher was reached.
    QByteArray m_pendingRequest;
    bool m_connected = false;
    bool m_ready = false;
    bool m_inUse = false;
    bool m_handedOver = false;
    bool m_attached = false;
};

} // namespace csm
