#include "history/HistoryPruner.h"

#include "core/Logging.h"
#include "history/HistoryStore.h"

namespace csm {

HistoryPruner::HistoryPruner(HistoryStore& store, const RetentionPolicy& policy,
                             std::chrono::milliseconds interval, QObject* parent)
    : QObject(parent)
    , m_store(store)
    , m_policy(policy)
{
    m_timer.setInterval(interval);
    connect(&m_timer, &QTimer::timeout, this, [this] { Q_EMIT timerPassDone(pruneNow()); });
    m_timer.start();
}

std::chrono::milliseconds HistoryPruner::interval() const
{
    return m_timer.intervalAsDuration();
}

void HistoryPruner::setInterval(std::chrono::milliseconds interval)
{
    if (interval != m_timer.intervalAsDuration())
        m_timer.start(interval);
}

int HistoryPruner::pruneNow()
{
    const int deleted = m_store.prune(m_policy);
    if (!m_store.lastError().isEmpty())
        qCWarning(lcHistory).noquote()
            << "pruning the history stopped early:" << m_store.lastError();
    pruneFiles(m_policy.maxFilesBytes);
    // Whoever deleted runs (this process, another one, a person), the space is given back here.
    m_store.vacuumIfWorthIt();
    return deleted;
}

int HistoryPruner::pruneIfTooBig(qint64 runFilesBytes)
{
    const int deleted = m_store.pruneToSize(m_policy.maxTotalBytes);
    if (!m_store.lastError().isEmpty())
        qCWarning(lcHistory).noquote()
            << "pruning the history to its size limit stopped early:" << m_store.lastError();
    // A run's outputs can be large: the files' budget is checked after every run as well.
    if (m_filesBytes)
        *m_filesBytes += runFilesBytes;
    if (!m_filesBytes)
        pruneFiles(m_policy.maxFilesBytes);
    else if (*m_filesBytes > m_policy.maxFilesBytes)
        // Down to 90%: a history at its budget would otherwise walk the folders after every run
        // that stores a file.
        pruneFiles(m_policy.maxFilesBytes / 10 * 9);
    // Free pages are filled again by the next runs anyway; only many of them are worth giving
    // back (vacuumIfWorthIt decides).
    if (deleted > 0)
        m_store.vacuumIfWorthIt();
    return deleted;
}

void HistoryPruner::pruneFiles(qint64 maxBytes)
{
    qint64 left = -1;
    m_store.pruneFiles(maxBytes, &left);
    // Nothing walked (no limit, or the store could not be read): nothing counted either, and
    // the next run's end walks again.
    m_filesBytes = left >= 0 ? std::optional<qint64>(left) : std::nullopt;
}

} // namespace csm
