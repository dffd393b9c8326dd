#pragma once

#include <QtGlobal>

namespace csm {

// How much history HistoryStore::prune keeps. Runs still running are always kept.
struct RetentionPolicy
{
    static constexpr qint64 kMiB = 1024 * 1024;

    int maxRuns = 10000; // keep the newest this many runs; <= 0: no limit by count
    int maxAgeDays = 90; // drop runs started longer ago than this; <= 0: no limit by age
    // Drop the oldest runs while the database holds more than this (its pages in use, indexes
    // included); <= 0: no limit by size.
    qint64 maxTotalBytes = 512 * kMiB;
    // Remove the oldest runs' files (RunFilesStore, beside the database) while they add up to more
    // than this; the runs stay in the history, their files marked gone. <= 0: no limit.
    qint64 maxFilesBytes = 1024 * kMiB;

    friend bool operator==(const RetentionPolicy&, const RetentionPolicy&) = default;
};

} // namespace csm
