#pragma once

#include "core/Expected.h"
#include "history/HistoryQuery.h"
#include "history/RunRecord.h"

#include <QAbstractTableModel>
#include <QList>
#include <QPalette>
#include <QSet>
#include <QTimer>

namespace csm {

class HistoryStore;

// The run history as a table, newest run first, for the Runs page; the cells of one persistent
// session (a filter on HistoryQuery::sessionKey) in order instead, oldest first, as a notebook
// shows them, all read at once.
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
        Status,  // in words ("Out of memory"), with a coloured dot; what it means in its tooltip
        Summary, // what the run did in one line (RunSummary): its error, or its code's first line
        Client,
        Language, // "Python", "JavaScript"; the tool's name in its tooltip
        Session,  // a persistent session's cell: its name and number; empty for one-shot runs
        ExitCode,
        Duration,
        Files, // the output files that came back: a count, empty for a run without any
        ColumnCount,
    };

    enum Role
    {
        RunIdRole = Qt::UserRole + 1, // qint64
        StatusRole,                   // RunStatus as int
        OutputFileCountRole,          // int
        SortRole,                     // what a column sorts by: numbers where it shows numbers
    };

    static constexpr int kPageSize = 200;
    // Changes read per query in refresh(), and ids per lookup of runs that may join.
    static constexpr int kChangesPerRead = 500;
    static constexpr int kIdsPerRead = 500;
    // Reading rows: at most this many per query, and this long per turn of the event loop
    // before the rest waits for the next one; a filtered query covers a window of ids sized to
    // take about kScanStepMs.
    static constexpr int kMaxRowsPerRead = 1000;
    // A deletion of more rows than this reloads the table instead of removing rows one by one.
    static constexpr int kMaxRowsRemovedOneByOne = 1000;
    static constexpr qint64 kScanSliceMs = 40;
    static constexpr qint64 kScanStepMs = 10;
    static constexpr qint64 kFirstWindow = 2048;
    static constexpr qint64 kMinWindow = 256;
    static constexpr qint64 kMaxWindow = 1 << 20;

    // `store` must outlive the model and be used on the model's thread.
    explicit RunsModel(HistoryStore& store, QObject* parent = nullptr);

    // The runs shown: `filter`'s conditions (its paging and content fields are the model's).
    void setFilter(const HistoryQuery& filter);
    // Whether the rows are oldest first (a session's cells).
    bool isOldestFirst() const { return !m_filter.sessionKey.isEmpty(); }
    const HistoryQuery& filter() const { return m_filter; }

    // True while rows the view asked for are still being read, a slice per turn of the event
    // loop (a filter that matches few of many runs).
    bool isScanning() const;
    // Reads every run the filter matches, a slice per turn of the event loop: a table sorted
    // by another column than the start must hold them all to be true.
    void readAll();
    // Whether every run the filter matches is read.
    bool isComplete() const { return m_exhausted; }

    // Reads the changes made since the last call, by this process or any other. Without
    // changes it costs two small indexed reads, whatever the filter and the history's size.
    void refresh();

    // Deletes runs `ids` from the history and their rows from the table, keeping the others as
    // they are (no reload, unless another process deleted runs meanwhile). Fails, saying why,
    // when the history could not be written.
    Expected<void> deleteRuns(const QList<qint64>& ids);

    // How many times the model asked the store for rows (a page, a reload, runs that may join
    // the filter): for tests and benchmarks of what a refresh costs.
    int rowQueries() const { return m_rowQueries; }
    // The history's change counter as of the last refresh(): it moves when any run starts,
    // ends or is deleted, in any process.
    qint64 changeSeq() const { return m_changeSeq; }

    // The colours of the status dots and failures follow it (light or dark).
    void setPalette(const QPalette& palette);

    qint64 runId(int row) const;
    // The table row that shows run `id`, or -1 when it is not loaded (or the filter hides it).
    int rowOfRun(qint64 id) const;
    // What the table holds of a row's run: its id, change, client, transport, tool, language,
    // status, exit code, duration, times and output file count (HistoryStore::get() has the rest);
    // nothing for a row out of range.
    std::optional<RunRecord> run(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex& parent = {}) const override;
    void fetchMore(const QModelIndex& parent = {}) override;

private:
    // What a cell shows, or its tooltip's text (before it is made safe to show).
    static QString text(const RunRecord& run, Column column, bool toolTip);
    static QVariant sortKey(const RunRecord& run, Column column);
    HistoryQuery pageQuery() const;
    bool isFiltered() const;
    void scanSlice(bool notify);
    void reload(int atLeastRows);
    Expected<QList<RunRecord>> listRows(const HistoryQuery& query);
    void slim(RunRecord& run);
    qint64 newestIdInStore();
    void insertRuns(const QList<qint64>& ids);
    void updateLoadedRuns(const QList<qint64>& ids);
    void updateLoadedRun(const RunRecord& changed);
    // Where m_rows' row `stored` shows (`count`: m_rows' size when it does), and back.
    int shownRow(qsizetype stored, qsizetype count) const;
    int storedRow(int shown) const;
    // The row of m_rows that holds run `id`, or -1.
    int rowOf(qint64 id) const;

    HistoryStore& m_store;
    HistoryQuery m_filter;
    QList<RunRecord> m_rows; // newest first: ids strictly decreasing, however they show
    bool m_exhausted = false;
    // Every run below this id that matches is still to be read (keyset paging); the rows hold
    // every match from here up to m_newestId.
    qint64 m_scanBelow = 0;
    int m_wanted = 0; // rows the view asked for that are not read yet
    qint64 m_window = kFirstWindow;
    QTimer m_continue;
    qint64 m_changeSeq = 0;
    qint64 m_deletionSeq = 0;
    // The newest run id seen, whether the filter shows it or not: a change of a newer run is a
    // new run, the only kind that can join the rows under a filter a run's end cannot affect.
    qint64 m_newestId = 0;
    int m_rowQueries = 0;
    QSet<QString> m_strings; // the distinct short texts of the rows (slim())
    QPalette m_palette;
};

} // namespace csm
