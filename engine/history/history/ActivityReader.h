#pragma once

#include "core/Expected.h"
#include "history/ActivityReport.h"

#include <QSqlDatabase>

#include <optional>

namespace csm {

// Computes an ActivityReport in SQL, so that a history of 100,000 runs costs two queries over
// one covering index (runs_activity: started_at bounds them, no row is read): counts per
// interval, client and status, and the duration percentiles per interval through window
// functions (SQLite has no percentile aggregate). Used by HistoryStore::activity().
class ActivityReader final
{
public:
    // The report, or why it could not be read.
    static Expected<ActivityReport> read(const QSqlDatabase& db, const ActivityQuery& query);
};

} // namespace csm
