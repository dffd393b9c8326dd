#include "sandbox/InterpreterCellChannel.h"

#include "sandbox/InterpreterSession.h"

#include <QTimer>

namespace csm {

InterpreterCellChannel* InterpreterCellChannel::open(InterpreterSession& session, QObject* parent)
{
    auto* cell = new InterpreterCellChannel(session, parent);
    if (session.openCell(cell))
        return cell;
    cell->m_session = nullptr;
    delete cell;
    return nullptr;
}

InterpreterCellChannel::InterpreterCellChannel(InterpreterSession& session, QObject* parent)
    : ContainerChannel(session.containerName(), session.secrets(), parent)
    , m_session(&session)
{
    connect(&session, &InterpreterSession::cellOutput, this,
            &InterpreterCellChannel::framesReceived);
    connect(&session, &InterpreterSession::cellLost, this, &InterpreterCellChannel::sessionEnded);
}

InterpreterCellChannel::~InterpreterCellChannel()
{
    if (m_session)
        m_session->closeCell(this, std::nullopt);
}

void InterpreterCellChannel::sendRequest(const QByteArray& request)
{
    if (!m_session || m_session->state() == InterpreterSession::State::Ended) {
        const QString reason = m_session ? m_session->endReason() : QStringLiteral("it ended");
        QTimer::singleShot(0, this, [this, reason] { Q_EMIT failedToStart(reason); });
        return;
    }
    if (m_session->state() == InterpreterSession::State::Starting) {
        connect(
            m_session, &InterpreterSession::ready, this,
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

QByteArray InterpreterCellChannel::engineDiagnostics() const
{
    return m_session ? m_session->engineDiagnostics() : QByteArray();
}

void InterpreterCellChannel::handOver(ContainerReaper&, bool removeContainer)
{
    InterpreterSession* session = m_session;
    m_session = nullptr;
    if (!session)
        return;
    // Detached: what the session's next cells send is not for this one.
    session->disconnect(this);
    session->closeCell(this, m_exit);
    if (removeContainer)
        session->end(QStringLiteral("its cell had to be killed"), true);
}

EgressEndpoint* InterpreterCellChannel::egressEndpoint() const
{
    return m_session ? m_session->egressEndpoint() : nullptr;
}

bool InterpreterCellChannel::interrupt()
{
    if (!m_session || !m_sent)
        return false;
    m_session->interruptCell();
    return true;
}

void InterpreterCellChannel::sessionEnded(const QString& reason, int engineExitCode)
{
    if (m_sent)
        Q_EMIT ended(engineExitCode);
    else
        Q_EMIT failedToStart(reason);
}

} // namespace csm
