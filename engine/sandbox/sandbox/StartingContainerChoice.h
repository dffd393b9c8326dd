#pragma once

#include <QList>
#include <QtGlobal>

#include <optional>

namespace csm {

// When a call finds no pooled container ready: whether one of those still starting will be
// ready sooner than a cold start begun now, and which. A container that is up (its launcher
// reached) counts as ready at once: its interpreter stops importing when the program arrives. One
// still being created is expected when containers usually come up; a cold start takes what cold
// starts usually take. Without figures yet, the one under way wins: it is ahead of any new start.
class StartingContainerChoice final
{
public:
    struct Candidate
    {
        bool up = false;
        qint64 elapsedMs = 0; // since its start
    };

    // The index of the candidate to take, or nothing (start cold).
    static std::optional<qsizetype> pick(const QList<Candidate>& candidates,
                                         std::optional<qint64> upEstimateMs,
                                         std::optional<qint64> coldEstimateMs);
    // How long until `candidate` can take a program, as estimated.
    static qint64 remainingMs(const Candidate& candidate, std::optional<qint64> upEstimateMs);
};

} // namespace csm
