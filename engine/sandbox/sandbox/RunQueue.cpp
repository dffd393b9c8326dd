#include "sandbox/RunQueue.h"

#include "platform/MachineResources.h"

#include <algorithm>

namespace csm {

int RunQueue::defaultMaxRunning(qint64 memoryLimitBytes)
{
    int cap = 2 * MachineResources::cpuCount();
    const qint64 memory = MachineResources::physicalMemoryBytes();
    if (memory > 0 && memoryLimitBytes > 0)
        cap = int(std::min<qint64>(cap, memory / memoryLimitBytes));
    return std::max(1, cap);
}

RunQueue::RunQueue(Limits limits, QObject* parent)
    : QObject(parent)
{
    setLimits(limits);
}

void RunQueue::setLimits(Limits limits)
{
    limits.maxRunning = std::max(1, limits.maxRunning);
    limits.maxWaiting = std::max(0, limits.maxWaiting);
    m_limits = limits;
    admitWaiting();
}

bool RunQueue::isFull() const
{
    return runningCount() >= m_limits.maxRunning && waitingCount() >= m_limits.maxWaiting;
}

RunQueue::Ticket RunQueue::request(QObject* context, std::function<void()> admitted)
{
    const Ticket ticket = m_nextTicket++;
    Waiting waiting{ticket, context, std::move(admitted)};
    if (runningCount() < m_limits.maxRunning)
        admit(std::move(waiting));
    else
        m_waiting.append(std::move(waiting)); // over maxWaiting only if the caller did not ask
    return ticket;
}

void RunQueue::release(Ticket ticket)
{
    if (m_running.removeOne(ticket)) {
        admitWaiting();
        return;
    }
    m_waiting.removeIf([ticket](const Waiting& waiting) { return waiting.ticket == ticket; });
}

int RunQueue::waitingAhead(Ticket ticket) const
{
    for (qsizetype i = 0; i < m_waiting.size(); ++i) {
        if (m_waiting.at(i).ticket == ticket)
            return int(i);
    }
    return -1;
}

void RunQueue::admit(Waiting waiting)
{
    m_running.append(waiting.ticket);
    // From the event loop, never from inside request() or release(): the caller is still in
    // the middle of its own state change.
    if (waiting.context)
        QMetaObject::invokeMethod(waiting.context, std::move(waiting.admitted),
                                  Qt::QueuedConnection);
}

void RunQueue::admitWaiting()
{
    while (runningCount() < m_limits.maxRunning && !m_waiting.isEmpty())
        admit(m_waiting.takeFirst());
}

} // namespace csm
