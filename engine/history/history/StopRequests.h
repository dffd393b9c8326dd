#pragma once

#include "core/Expected.h"

#include <QList>

namespace csm {

class HistoryDatabase;

// Stop requests between processes: the desktop app asks, through the history, the server of a
// running run to stop it, and the server picks the request up (RunHistoryRecorder polls). When
// the app hosts the server itself, its Stop is a direct call and needs none of this.
class StopRequests final
{
public:
    explicit StopRequests(HistoryDatabase& database);

    // Asks the server of running run `id` to stop it, as its client's cancellation would. Fails
    // when the run is not running.
    Expected<void> request(qint64 id);
    // The runs among `runningIds` someone asked to stop, each handed out once.
    Expected<QList<qint64>> take(const QList<qint64>& runningIds);
    // Inside a write that ends run `runId`: a run that ended needs no stop any more.
    Expected<void> drop(qint64 runId, const char* what);

private:
    HistoryDatabase& m_database;
};

} // namespace csm
