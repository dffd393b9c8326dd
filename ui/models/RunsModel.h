#pragma once

#include "history/HistoryQuery.h"
#include "history/RunRecord.h"

#include <QAbstractTableModel>
#include <QList>

namespace csm {

class HistoryStore;

// The run history as a table, newest run first, for the Runs page.
//
// Lazy: rows are read a page at a time (keyset paging on the run id) as the view scrolls
// (canFetchMore/fetchMore), and only the columns of the table are loaded (no code or output;
// HistoryStore::get() loads one run in full), so a history of 100,000 runs opens as fast as one
// of 100. Live: refresh() reads what any process changed since the last look (runs started,
// runs ended) through HistoryStore::changedSince and inserts or updates just those rows; only a
// deletion (prune, delete) reloads the loaded rows. The app calls refresh() on a timer.
class RunsModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        Started,
        Client,
        Tool,
        Status,
        ExitCode,
        Duration,
        ColumnCount,
    };

    enum Role
    {
        RunIdRole = Qt::UserRole + 1, // qint64
        StatusRole,                   // RunStatus as int
    };

    static constexpr int kPageSize = 200;

    // `store` must outlive the model and be used on the model's thread.
    explicit RunsModel(HistoryStore& store, QObject* parent = nullptr);

    // The runs shown: `filter`'s conditions (its paging and content fields are the model's).
    void setFilter(const HistoryQuery& filter);
    const HistoryQuery& filter() const { return m_filter; }

    // Reads the changes made since the last call, by this process or any other.
    void refresh();

    qint64 runId(int row) const;
    // The loaded record of a row (no code or output); nothing for a row out of range.
    std::optional<RunRecord> run(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent = {}) const override;
    void fetchMore(const QModelIndex& parent = {}) override;

private:
    HistoryQuery pageQuery() const;
    void reload(int atLeastRows);
    void insertNewRuns();
    void updateLoadedRun(const RunRecord& changed);
    int rowOf(qint64 id) const;

    HistoryStore& m_store;
    HistoryQuery m_filter;
    QList<RunRecord> m_rows; // newest first: ids strictly decreasing
    bool m_exhausted = false;
    qint64 m_changeSeq = 0;
    qint64 m_deletionSeq = 0;
};

} // namespace csm
