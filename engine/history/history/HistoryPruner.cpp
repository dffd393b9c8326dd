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
    const Expected<int> deleted = m_store.retention().prune(m_policy);
    if (!deleted)
        qCWarning(lcHistory).noquote() << "pruning the history stopped early:" << deleted.error();
    pruneFiles(m_policy.maxFilesBytes);
    // Whoever deleted runs (this process, another one, a person), the space is given back here.
    (void)m_store.retention().vacuumIfWorthIt();
    return deleted.valueOr(0);
}

int HistoryPruner::pruneIfTooBig(qint64 runFilesBytes)
{
    const Expected<int> deleted = m_store.retention().pruneToSize(m_policy.maxTotalBytes);
    if (!deleted)
        qCWarning(lcHistory).noquote()
            << "pruning the history to its size limit stopped early:" << deleted.error();
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
    // (A prune that stopped part way may have deleted some: worth the look too.)
    if (!deleted || *deleted > 0)
        (void)m_store.retention().vacuumIfWorthIt();
    return deleted.valueOr(0);
}

void HistoryPruner::pruneFiles(qint64 maxBytes)
{
    qint64 left = -1;
    if (const Expected<int> removed = m_store.retention().pruneFiles(maxBytes, &left); !removed)
        qCWarning(lcHistory).noquote() << "pruning the runs' files failed:" << removed.error();
    // Nothing walked (no limit, or the store could not be read): nothing counted either, and
    // the next run's end walks again.
    m_filesBytes = left >= 0 ? std::optional<qint64>(left) : std::nullopt;
}

} // namespace csm
