#include "sandbox/SessionCellChannel.h"

#include "sandbox/SandboxSession.h"

#include <QTimer>

namespace csm {

SessionCellChannel::SessionCellChannel(SandboxSession& session, QObject* parent)
    : ContainerChannel(session.containerName(), session.secrets(), parent)
    , m_session(&session)
{}

SessionCellChannel::~SessionCellChannel()
{
    if (m_session)
        m_session->closeCell(this);
}

void SessionCellChannel::sendRequest(const QByteArray& request)
{
    if (!m_session || m_session->state() == SandboxSession::State::Ended) {
        const QString reason = m_session ? m_session->endReason() : QStringLiteral("it ended");
        QTimer::singleShot(0, this, [this, reason] { Q_EMIT failedToStart(reason); });
        return;
    }
    if (m_session->state() == SandboxSession::State::Starting) {
        connect(
            m_session, &SandboxSession::ready, this,
            [this, request] {
                m_sent = true;
                m_session->sendCell(request);
            },
            Qt::SingleShotConnection);
        return;
    }
    m_sent = true;
    m_session->sendCell(request);
}

QByteArray SessionCellChannel::engineDiagnostics() const
{
    return m_session ? m_session->engineDiagnostics() : QByteArray();
}

void SessionCellChannel::handOver(ContainerReaper&, bool removeContainer)
{
    SandboxSession* session = m_session;
    m_session = nullptr;
    if (!session)
        return;
    session->closeCell(this);
    if (removeContainer)
        session->end(QStringLiteral("its cell had to be killed"), true);
}

EgressEndpoint* SessionCellChannel::egressEndpoint() const
{
    return m_session ? m_session->egressEndpoint() : nullptr;
}

bool SessionCellChannel::interrupt()
{
    if (!m_session || !m_sent)
        return false;
    m_session->interruptCell();
    return true;
}

void SessionCellChannel::sessionEnded(const QString& reason, int engineExitCode)
{
    if (m_sent)
        Q_EMIT ended(engineExitCode);
    else
        Q_EMIT failedToStart(reason);
}

} // namespace csm
