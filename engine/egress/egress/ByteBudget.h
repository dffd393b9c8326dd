#pragma once

#include <QtGlobal>

#include <atomic>

namespace csm {

// A run's network allowance in bytes, both ways, spent by every connection of the run: the
// proxy's own thread and the threads that carry tunnels (ByteShuttle) at once.
class ByteBudget final
{
public:
    explicit ByteBudget(qint64 limit)
        : m_limit(limit)
    {}

    // Spends `bytes`; false once the run has gone past its limit.
    bool spend(qint64 bytes) { return m_spent.fetch_add(bytes) + bytes <= m_limit; }
    qint64 limit() const { return m_limit; }

private:
    const qint64 m_limit;
    std::atomic<qint64> m_spent{0};
};

} // namespace csm
