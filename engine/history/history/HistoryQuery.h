#pragma once

#include "history/RunStatus.h"

#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>

namespace csm {

// Which runs HistoryStore::list and HistoryStore::count return. Runs come newest first (by id);
// every filter that is set must match. The defaults return the newest 100 runs, in full.
struct HistoryQuery
{
    // Paging. limit <= 0: no limit. Prefer beforeId (keyset paging: pass the last id of the
    // previous page) over offset, which rescans the skipped rows and shifts when runs are added.
    // count() ignores limit and offset.
    int limit = 100;
    int offset = 0;
    std::optional<qint64> beforeId; // only runs with id < beforeId
    std::optional<qint64> sinceId;  // only runs with id > sinceId (runs started since then)
    // Only these runs (empty: no such restriction). One SQL parameter each: keep it to a few
    // hundred ids per query.
    QList<qint64> ids;

    // Filters; an empty or null one matches everything.
    QList<RunStatus> statuses; // any of these
    QString language;          // exactly, e.g. "python"
    QString clientName;        // substring, case-insensitive for ASCII letters
    QString text;              // substring of code, stdout or stderr, as clientName
    QDateTime startedFrom;     // started at or after
    QDateTime startedBefore;   // started strictly before
    // Exactly this client name, an empty one included (runs of clients that gave none), as
    // HistoryStore::clients() lists them; uses the client name index, unlike clientName.
    std::optional<QString> exactClientName;
    // Only the cells of this persistent session (RunRecord::sessionKey), through its index.
    QString sessionKey;

    // For table views: false leaves code, stdoutText and stderrText holding at most their first
    // previewChars characters, so a page of runs does not load megabytes of output, and leaves
    // `files` empty (outputFileCount is always there). get() loads one run in full.
    bool includeContent = true;
    int previewChars = 0;
    // With includeContent false: stderrText holds its last stderrTailChars characters instead,
    // where a failed program says why (0: as previewChars says).
    int stderrTailChars = 0;
};

} // namespace csm
