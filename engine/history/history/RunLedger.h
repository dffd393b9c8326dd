#pragma once

#include "core/Expected.h"
#include "history/RunRecord.h"

#include <QList>
#include <QString>

#include <chrono>
#include <functional>

namespace csm {

class HistoryDatabase;
class StopRequests;

// The record of the runs: what servers write as runs start, print and end, what a user deletes.
// Each write is one transaction, applied entirely or not at all.
class RunLedger final
{
public:
    // What recordOutput waits at most for another writer: it skips an update rather than hold up
    // the server.
    static constexpr std::chrono::milliseconds kLiveOutputBusyTimeout{50};

    RunLedger(HistoryDatabase& database, StopRequests& stopRequests);

    // Inserts a run as `running` (status, endedAt, id and changeSeq of `run` are ignored; a null
    // startedAt means now), with its filesKey and its input files (those of `files`). Returns
    // the new run's id.
    Expected<qint64> recordStart(const RunRecord& run);
    // Ends run `id`: stores status (which must be final), stdout/stderr and their truncation
    // flags, exitCode, durationMs, endedAt (null means now), errorMessage, the output files
    // (those of `files`; outputFileCount counts the ones without a skip reason) and the
    // connections of `finished`, and drops its stop request. A run already marked interrupted is
    // ended all the same: its real end wins. Fails when the run does not exist (any more).
    Expected<void> recordEnd(qint64 id, const RunRecord& finished);
    // While run `id` runs: what it has printed so far (its server's redacted view of it, e.g.
    // the tail of each stream), for live views in any process; the run's end replaces it. Fails
    // when the run is not running (any more), or another process held the file for more than
    // kLiveOutputBusyTimeout.
    Expected<void> recordOutput(qint64 id, const QString& stdoutText, const QString& stderrText);
    // Every run still `running` on `hostName` whose server is gone becomes `interrupted`, ended
    // now. `isServerAlive` is asked once per server pid (outside any transaction); pass
    // ProcessProbe::isCodeSandboxProcessAlive. A pid reused by a new server does not catch its
    // runs: runs are matched by server pid and server instance. Returns how many were marked.
    Expected<int> markInterrupted(const QString& hostName,
                                  const std::function<bool(qint64 pid)>& isServerAlive);
    // Deletes these runs and their files (ids that do not exist are ignored), running ones
    // included.
    Expected<void> remove(const QList<qint64>& ids);

private:
    Expected<void> insertFiles(qint64 runId, const QList<RunFileRecord>& files,
                               RunFileRecord::Direction direction);
    Expected<void> insertConnections(qint64 runId, const QList<RunConnectionRecord>& connections);
    Expected<void> markRunInterrupted(qint64 id, qint64 pid, qint64 now);

    HistoryDatabase& m_database;
    StopRequests& m_stopRequests;
};

} // namespace csm
