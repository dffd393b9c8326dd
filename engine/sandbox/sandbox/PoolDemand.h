#pragma once

#include <QtGlobal>

namespace csm {

// How many containers of one image the warm pool keeps waiting: the configured size at rest,
// one more each time a call finds none ready (up to a ceiling), and one fewer after each quiet
// spell without such a miss, back down to the configured size. Times are the caller's clock in
// milliseconds, so that tests can drive it.
class PoolDemand final
{
public:
    // Without a miss for this long, the pool gives back one container.
    static constexpr qint64 kQuietMs = 30'000;

    explicit PoolDemand(int baseSize);

    int target() const { return m_target; }
    int baseSize() const { return m_base; }
    // A call found no ready container. `ceiling`: the most the pool may grow to (the sandboxes
    // the memory cap lets run at once: more could never be used together).
    void recordMiss(qint64 nowMs, int ceiling);
    // One fewer when the last change is a quiet spell ago; whether the target went down.
    bool shrinkIfQuiet(qint64 nowMs);

private:
    int m_base;
    int m_target;
    qint64 m_lastChangeMs = 0;
};

} // namespace csm
