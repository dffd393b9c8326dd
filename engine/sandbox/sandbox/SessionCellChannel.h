#pragma once

#include "sandbox/ContainerChannel.h"

#include <QPointer>

namespace csm {

class SandboxSession;

// One cell's view of a session (SandboxSession::openCell): SandboxRun drives it as it drives any
// container channel, but handing it over only detaches the cell, and the container stays, unless
// the run removes it (a cell that would not stop), which ends the session. A request sent while
// the session is still starting waits for it.
class SessionCellChannel final : public ContainerChannel
{
    Q_OBJECT

public:
    SessionCellChannel(SandboxSession& session, QObject* parent);
    ~SessionCellChannel() override;

    void sendRequest(const QByteArray& request) override;
    QByteArray engineDiagnostics() const override;
    void handOver(ContainerReaper& reaper, bool removeContainer) override;
    bool interrupt() override;
    EgressEndpoint* egressEndpoint() const override;

private:
    friend class SandboxSession;
    void deliver(const QByteArray& bytes) { Q_EMIT framesReceived(bytes); }
    void sessionEnded(const QString& reason, int engineExitCode);

    QPointer<SandboxSession> m_session;
    bool m_sent = false;
};

} // namespace csm
