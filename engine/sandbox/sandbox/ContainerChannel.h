#pragma once

#include "sandbox/SandboxSecrets.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <memory>

namespace csm {

class ContainerReaper;
class EgressEndpoint;
struct LauncherExitStatus;

// A container that will run one program, and the channel to its launcher: started on demand
// (ColdContainerChannel) or ahead of time by the warm pool (WarmContainerChannel), or a live
// interpreter session lent to one cell (InterpreterSession). SandboxRun drives each the same way:
// send the program, read the launcher's frames, and release the channel when done.
class ContainerChannel : public QObject
{
    Q_OBJECT

public:
    // `secrets`: what the container's environment holds (null: nothing).
    ContainerChannel(QString containerName, std::shared_ptr<const SandboxSecrets> secrets,
                     QObject* parent = nullptr);

    QString containerName() const { return m_containerName; }
    // Never null.
    const std::shared_ptr<const SandboxSecrets>& secrets() const { return m_secrets; }

    // Delivers the request (LauncherRequest: the program and its input files); the launcher answers
    // with frames through framesReceived().
    virtual void sendRequest(const QByteArray& request) = 0;
    // What the engine itself said on stderr (for error messages); may be empty.
    virtual QByteArray engineDiagnostics() const { return {}; }
    // Gives the container (and any process still attached to it) to the reaper, to remove it or
    // let it go away on its own. The channel is unusable afterwards.
    virtual void handOver(ContainerReaper& reaper, bool removeContainer) = 0;
    // What its holder does when done with it: `holder` stops listening, the container goes to
    // the reaper (handOver), and the channel is deleted from the event loop. Returns what the
    // engine said (engineDiagnostics()), for the messages written after. An interpreter
    // session, which its cells borrow, takes its next cell instead.
    virtual QByteArray release(ContainerReaper& reaper, bool removeContainer, QObject* holder);
    // Asks the program to stop (a session's cell: KeyboardInterrupt) without ending the
    // container; false where there is no such thing (a one-shot run is killed instead).
    virtual bool interrupt() { return false; }
    // The launcher said the program ended, with `status` (the run decodes the frames; a session's
    // cell passes the status on to its session when the cell is handed over).
    virtual void programExited(const LauncherExitStatus& status) { (void)status; }
    // Egress proxy mode: the host's end of the container's network, whose connections the run
    // given this channel serves; null without one.
    virtual EgressEndpoint* egressEndpoint() const { return m_egress; }
    // Takes `endpoint` over (null: none).
    void setEgressEndpoint(EgressEndpoint* endpoint);

Q_SIGNALS:
    void framesReceived(const QByteArray& bytes);
    // The channel closed. `engineExitCode` is the engine client's exit code where there is one
    // (cold), else -1.
    void ended(int engineExitCode);
    // The engine could not even be started.
    void failedToStart(const QString& reason);

private:
    QString m_containerName;
    std::shared_ptr<const SandboxSecrets> m_secrets;
    EgressEndpoint* m_egress = nullptr;
};

} // namespace csm
