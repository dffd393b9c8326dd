#include "sandbox/StartingContainerChoice.h"

#include <algorithm>

namespace csm {

qint64 StartingContainerChoice::remainingMs(const Candidate& candidate,
                                            std::optional<qint64> upEstimateMs)
{
    if (candidate.up || !upEstimateMs)
        return 0;
    return std::max<qint64>(0, *upEstimateMs - candidate.elapsedMs);
}

std::optional<qsizetype> StartingContainerChoice::pick(const QList<Candidate>& candidates,
                                                       std::optional<qint64> upEstimateMs,
                                                       std::optional<qint64> coldEstimateMs)
{
    std::optional<qsizetype> best;
    qint64 bestRemaining = 0;
    for (qsizetype i = 0; i < candidates.size(); ++i) {
        const qint64 remaining = remainingMs(candidates.at(i), upEstimateMs);
        if (!best || remaining < bestRemaining) {
            best = i;
            bestRemaining = remaining;
        }
    }
    // A cold start's own figure, or else a pooled one's: both are the engine starting a
    // container.
    const std::optional<qint64> cold = coldEstimateMs ? coldEstimateMs : upEstimateMs;
    if (best && cold && bestRemaining > *cold)
        return std::nullopt;
    return best;
}

} // namespace csm
