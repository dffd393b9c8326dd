#pragma once

namespace csm {

// How much history HistoryStore::prune keeps. Runs still running are always kept.
struct RetentionPolicy
{
    int maxRuns = 10000; // keep the newest this many runs; <= 0: no limit by count
    int maxAgeDays = 90; // drop runs started longer ago than this; <= 0: no limit by age

    friend bool operator==(const RetentionPolicy&, const RetentionPolicy&) = default;
};

} // namespace csm
