#pragma once

#include "core/Expected.h"
#include "history/HistoryMigration.h"
#include "history/HistoryQueries.h"
#include "history/HistoryRetention.h"
#include "history/RunLedger.h"
#include "history/StopRequests.h"

#include <QList>
#include <QString>

#include <chrono>
#include <memory>

namespace csm {

class HistoryDatabase;

// The run history: every tool call of every Code Sandbox process of this user (headless servers
// and the desktop app alike) in one SQLite file, written and read by all of them at once
// (HistoryDatabase says how). Its parts share one connection:
// - ledger(): the runs as servers record them, and a user's deletions;
// - queries(): reading them;
// - retention(): keeping the file and the runs' files within their limits;
// - stopRequests(): Stop between processes (the desktop app and another process's server).
//
// Every call returns Expected: a failure says what went wrong, and the database stays as it was.
// A store may be used only on the thread that opened it, and destroyed there. Calls block: a
// write usually takes well under a millisecond, but can wait for the busy timeout.
class HistoryStore final
{
public:
    // <GenericDataLocation>/code-sandbox/history.sqlite, e.g.
    // ~/.local/share/code-sandbox/history.sqlite: shared by the app and the headless server
    // whatever their application names.
    static QString defaultPath();

    // Opens the history at `path`, creating its folder (mode 0700) and file (0600) as needed,
    // and brings the schema up to date (see HistoryDatabase::open).
    static Expected<std::unique_ptr<HistoryStore>> open(const QString& path);
    // The same with the schema steps to apply instead of HistorySchema::migrations(): for tests
    // of the migration mechanism.
    static Expected<std::unique_ptr<HistoryStore>> open(const QString& path,
                                                        const QList<HistoryMigration>& migrations);

    ~HistoryStore();
    Q_DISABLE_COPY_MOVE(HistoryStore)

    QString path() const;
    // The folder of the runs' files (RunFilesStore) beside the history file: deleting a run
    // (remove, prune) removes its folder there too.
    QString filesRoot() const;
    // The schema version of the file (PRAGMA user_version), once open() has upgraded it.
    int schemaVersion() const;
    // How long a call waits for another process's write to finish before it fails (5 s unless
    // set): a GUI thread may want a shorter one.
    Expected<void> setBusyTimeout(std::chrono::milliseconds timeout);

    RunLedger& ledger() { return m_ledger; }
    const HistoryQueries& queries() const { return m_queries; }
    HistoryRetention& retention() { return m_retention; }
    StopRequests& stopRequests() { return m_stopRequests; }

private:
    explicit HistoryStore(std::unique_ptr<HistoryDatabase> database);

    std::unique_ptr<HistoryDatabase> m_database;
    StopRequests m_stopRequests;
    RunLedger m_ledger;
    HistoryQueries m_queries;
    HistoryRetention m_retention;
};

} // namespace csm
