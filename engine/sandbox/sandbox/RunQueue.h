#pragma once

#include <QList>
#include <QObject>
#include <QPointer>

#include <functional>

namespace csm {

// The server-wide cap on sandboxes running programs at once, with an ordered, bounded queue for
// the runs that wait for one. Without it every call would start a container at once, and a flood
// of calls would ask the machine for more memory and processes than it has.
//
// A run asks for a slot with request(); its `admitted` callback is called from the event loop
// once it has one (at once if a slot is free), and it gives the slot back with release() when it
// ends, or when it stops waiting (cancelled, timed out).
class RunQueue final : public QObject
{
    Q_OBJECT

public:
    struct Limits
    {
        int maxRunning = 4;   // sandboxes running programs at once (at least 1)
        int maxWaiting = 128; // runs waiting for a slot; beyond that, calls are refused at once
    };
    using Ticket = quint64;

    // The cap a server has unless told otherwise: min(2 x CPUs, memory / memory limit), at
    // least 1, so that the sandboxes together fit in the machine.
    static int defaultMaxRunning(qint64 memoryLimitBytes);

    explicit RunQueue(Limits limits, QObject* parent = nullptr);

    // From now on; a higher cap admits waiting runs at once, a lower one lets running runs end.
    void setLimits(Limits limits);
    const Limits& limits() const { return m_limits; }

    // A new run would be refused: every slot is taken and the queue is full.
    bool isFull() const;
    // `admitted` is called (queued, on `context`'s thread) once the run holds a slot; never if
    // `context` is destroyed first. The ticket must be released in every case.
    Ticket request(QObject* context, std::function<void()> admitted);
    // The run ended or stopped waiting: its slot (or its place in the queue) is given up.
    void release(Ticket ticket);
    // How many runs wait ahead of this one; -1 once it holds a slot (or is unknown).
    int waitingAhead(Ticket ticket) const;

    int runningCount() const { return int(m_running.size()); }
    int waitingCount() const { return int(m_waiting.size()); }

private:
    struct Waiting
    {
        Ticket ticket;
        QPointer<QObject> context;
        std::function<void()> admitted;
    };

    void admit(Waiting waiting);
    void admitWaiting();

    Limits m_limits;
    QList<Ticket> m_running;
    QList<Waiting> m_waiting;
    Ticket m_nextTicket = 1;
};

} // namespace csm
