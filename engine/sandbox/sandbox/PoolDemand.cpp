#include "sandbox/PoolDemand.h"

#include <algorithm>

namespace csm {

PoolDemand::PoolDemand(int baseSize)
    : m_base(std::max(0, baseSize))
    , m_target(m_base)
{}

void PoolDemand::recordMiss(qint64 nowMs, int ceiling)
{
    // Quiet is measured from the last miss: a pool still missing calls keeps its size.
    m_lastChangeMs = nowMs;
    if (m_target < std::max(ceiling, m_base))
        ++m_target;
}

bool PoolDemand::shrinkIfQuiet(qint64 nowMs)
{
    if (m_target <= m_base || nowMs - m_lastChangeMs < kQuietMs)
        return false;
    --m_target;
    m_lastChangeMs = nowMs;
    return true;
}

} // namespace csm
