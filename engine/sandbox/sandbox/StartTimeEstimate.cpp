#include "sandbox/StartTimeEstimate.h"

#include <cmath>

namespace csm {

namespace {
// Each sample counts for a quarter: a few starts after the load changes, the estimate follows.
constexpr double kWeight = 0.25;
} // namespace

void StartTimeEstimate::add(qint64 ms)
{
    if (ms < 0)
        return;
    m_average = m_hasSample ? m_average + kWeight * (double(ms) - m_average) : double(ms);
    m_hasSample = true;
}

std::optional<qint64> StartTimeEstimate::value() const
{
    if (!m_hasSample)
        return std::nullopt;
    return qint64(std::llround(m_average));
}

} // namespace csm
