#pragma once

#include "core/Expected.h"

#include <QStringList>
#include <QVariantList>

#include <functional>

namespace csm {

class HistoryDatabase;

// Deleting runs (a user's remove, a prune): the rows go inside a write transaction, the runs'
// folders of files only once it has committed, so that a rolled back deletion keeps both.
class RunDeletion final
{
public:
    // Runs `body` in one write transaction of `database`; the folders of the runs it deleted go
    // once the transaction has committed. Returns how many runs went.
    static Expected<qint64> inTransaction(HistoryDatabase& database, const char* what,
                                          const std::function<Expected<void>(RunDeletion&)>& body);

    // Deletes the runs matching `condition` (an SQL condition on runs, with `?` for `values`),
    // noting their folders. The first one that deletes any counts one more deletion
    // (HistoryQueries::deletionSeq): one per transaction.
    Expected<void> deleteWhere(const QString& condition, const QVariantList& values);

private:
    RunDeletion(HistoryDatabase& database, const char* what);

    HistoryDatabase& m_database;
    const char* m_what;
    QStringList m_filesKeys;
    qint64 m_deleted = 0;
};

} // namespace csm
