#pragma once

#include "sandbox/ContainerChannel.h"
#include "sandbox/LauncherExitStatus.h"

#include <QPointer>

#include <optional>

namespace csm {

class InterpreterSession;

// One cell's view of a session (InterpreterSession::openCell): SandboxRun drives it as it drives
// any container channel, but handing it over only detaches the cell, and the container stays,
// unless the run removes it (a cell that would not stop), which ends the session. A request sent
// while the session is still starting waits for it.
class InterpreterCellChannel final : public ContainerChannel
{
    Q_OBJECT

public:
    // The channel for `session`'s next cell, owned by `parent`; null while another cell runs or
    // once the session has ended.
    static InterpreterCellChannel* open(InterpreterSession& session, QObject* parent);
    ~InterpreterCellChannel() override;

    void sendRequest(const QByteArray& request) override;
    QByteArray engineDiagnostics() const override;
    void handOver(ContainerReaper& reaper, bool removeContainer) override;
    bool interrupt() override;
    EgressEndpoint* egressEndpoint() const override;
    void programExited(const LauncherExitStatus& status) override { m_exit = status; }

private:
    InterpreterCellChannel(InterpreterSession& session, QObject* parent);
    void sessionEnded(const QString& reason, int engineExitCode);

    QPointer<InterpreterSession> m_session;
    bool m_sent = false;
    std::optional<LauncherExitStatus> m_exit;
};

} // namespace csm
