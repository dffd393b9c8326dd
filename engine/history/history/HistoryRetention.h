#pragma once

#include "core/Expected.h"
#include "history/RetentionPolicy.h"

namespace csm {

class HistoryDatabase;

// Keeping the history within its limits: pruning old runs and their files, and giving the space
// of deleted runs back to the file system. Running runs are never pruned.
class HistoryRetention final
{
public:
    explicit HistoryRetention(HistoryDatabase& database);

    // Deletes ended runs beyond the newest policy.maxRuns and those started more than
    // policy.maxAgeDays ago, then the oldest ended runs while the database holds more than
    // policy.maxTotalBytes (see contentBytes()), in transactions of a few hundred rows so that
    // other processes' writes are never held up for long. Returns how many were deleted; a
    // failure says how many went before it.
    Expected<int> prune(const RetentionPolicy& policy);
    // Only the size part of prune(): cheap (three small reads) while the database is within
    // `maxBytes`, which it is nearly always; for a check after every recorded run.
    Expected<int> pruneToSize(qint64 maxBytes);
    // Removes the oldest runs' folders of files while they add up to more than `maxBytes`
    // (<= 0: no limit), never those of running runs. The runs stay; their files' storedPath then
    // names a file that is gone. Returns how many folders went, and what the files add up to
    // after in `bytesLeft` (left alone when nothing was walked).
    Expected<int> pruneFiles(qint64 maxBytes, qint64* bytesLeft = nullptr);
    // Gives the space of deleted runs back to the file system when there is a lot of it, a
    // chunk at a time. Returns how many pages (of 4 KiB) were released.
    Expected<int> vacuumIfWorthIt();
    // Makes a file created without incremental auto-vacuum (by an old build or another SQLite
    // tool) able to shrink: sets it and rewrites the file (VACUUM), which keeps every other
    // process from writing until it is done, so only an explicit `history prune` asks for it.
    Expected<void> enableIncrementalVacuum();
    // The bytes of the database's pages in use, indexes included, free pages not counted: what
    // RetentionPolicy::maxTotalBytes limits. The file itself is about that big, plus its free
    // pages, which new runs fill first.
    Expected<qint64> contentBytes() const;

private:
    Expected<void> pruneByCountAndAge(const RetentionPolicy& policy, int* total);
    Expected<void> pruneBySize(qint64 maxBytes, int* total);
    Expected<qint64> autoVacuumMode() const;

    HistoryDatabase& m_database;
};

} // namespace csm
