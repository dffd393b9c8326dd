#pragma once

#include "core/Expected.h"
#include "history/ActivityReport.h"
#include "history/HistoryInterpreterSession.h"
#include "history/HistoryQuery.h"
#include "history/RunRecord.h"

#include <QList>
#include <QStringList>
#include <QVariantList>

namespace csm {

class HistoryDatabase;

// Reading the history: each read sees one consistent snapshot of the database.
class HistoryQueries final
{
public:
    explicit HistoryQueries(const HistoryDatabase& database);

    // Runs matching `query`, newest first; with their files when query.includeContent.
    Expected<QList<RunRecord>> list(const HistoryQuery& query) const;
    // How many runs match `query` (its limit and offset are ignored).
    Expected<qint64> count(const HistoryQuery& query) const;
    // One run, in full, its files and connections included (the only read that loads them).
    // Fails with "no run N" when there is no such run.
    Expected<RunRecord> get(qint64 id) const;
    // The distinct client names of the runs, sorted (byte order), the empty name included when
    // some run has none. Cheap whatever the number of runs: one index seek per name.
    Expected<QStringList> clients() const;
    // The persistent sessions that have cells in the history, the most recently used first, at
    // most `limit`: for choosing one to show (HistoryQuery::sessionKey) or export.
    Expected<QList<HistoryInterpreterSession>> sessions(int limit = 50) const;
    // Calls per interval by client and by outcome, and duration percentiles, over a stretch of
    // time (ActivityReader): aggregated in SQL, cheap at 100,000 runs.
    Expected<ActivityReport> activity(const ActivityQuery& query) const;

    // For a live view in any process: the runs inserted or updated since the change
    // `lastSeenChangeSeq`, oldest change first, at most `limit` of them, with code and outputs cut
    // to `previewChars` characters (get() loads a run in full). Every insert and update of a run
    // gives it the next value of one counter, in the same transaction, so the values grow in
    // commit order: a reader that keeps the changeSeq of the last run it received and asks again
    // with it misses nothing and gets nothing twice (a run updated again comes back with its new
    // state). Start with 0, or with lastChangeSeq() to skip what is already there. Deleted runs
    // do not show up here: watch deletionSeq() for those.
    Expected<QList<RunRecord>> changedSince(qint64 lastSeenChangeSeq, int limit = 500,
                                            int previewChars = 200) const;
    // The changeSeq of the latest insert or update (0 for none).
    Expected<qint64> lastChangeSeq() const;
    // Grows whenever runs are deleted (remove, prune): a view that sees it change reloads.
    Expected<qint64> deletionSeq() const;

private:
    Expected<QList<RunRecord>> select(const QString& sql, const QVariantList& values) const;
    Expected<void> addFiles(QList<RunRecord>& runs) const;
    Expected<QList<RunFileRecord>> filesOf(qint64 runId) const;
    Expected<QList<RunConnectionRecord>> connectionsOf(qint64 runId) const;
    Expected<qint64> counter(const QString& sql, const char* what) const;

    const HistoryDatabase& m_database;
};

} // namespace csm
