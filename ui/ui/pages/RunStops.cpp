#include "ui/pages/RunStops.h"

#include "history/HistoryStore.h"
#include "history/RunStatus.h"
#include "server/EmbeddedServer.h"

#include <utility>

namespace csm {

RunStops::RunStops(HistoryStore& store, QObject* parent)
    : QObject(parent)
    , m_store(store)
{}

void RunStops::setServer(EmbeddedServer* server)
{
    m_server = server;
    if (!server)
        return;
    connect(server, &EmbeddedServer::runStopAnswered, this, [this](qint64 id, bool stopping) {
        if (!m_direct.remove(id))
            return;
        if (stopping)
            this->stopping(id);
        else
            stopThroughHistory(id);
    });
    // Stopped before it answered: the history still reaches a run's server, whichever it is.
    connect(server, &EmbeddedServer::stopped, this, [this] {
        const QSet<qint64> unanswered = std::exchange(m_direct, {});
        for (const qint64 id : unanswered)
            stopThroughHistory(id);
    });
}

void RunStops::stop(qint64 id)
{
    if (m_server && m_server->isRunning()) {
        m_direct.insert(id);
        m_server->stopRun(id);
        return;
    }
    stopThroughHistory(id);
}

void RunStops::stopThroughHistory(qint64 id)
{
    if (const Expected<void> requested = m_store.stopRequests().request(id)) {
        stopping(id);
    } else {
        Q_EMIT said(tr("Run #%1 cannot be stopped: %2").arg(id).arg(requested.error()));
        Q_EMIT failed(id);
    }
}

void RunStops::stopping(qint64 id)
{
    m_stopping.insert(id);
    Q_EMIT said(tr("Stopping run #%1…").arg(id));
}

void RunStops::checkEnded()
{
    for (const qint64 id : QSet<qint64>(m_stopping)) {
        const Expected<RunRecord> run = m_store.queries().get(id);
        if (run && !RunStatusTraits::isFinal(run->status))
            continue;
        m_stopping.remove(id);
        if (!run)
            Q_EMIT said(tr("Run #%1 is no longer in the history.").arg(id));
        else if (run->status == RunStatus::Cancelled)
            Q_EMIT said(tr("Run #%1 stopped.").arg(id));
        else
            Q_EMIT said(tr("Run #%1 ended before it could be stopped (%2).")
                            .arg(id)
                            .arg(RunStatusTraits::toString(run->status)));
    }
}

} // namespace csm
