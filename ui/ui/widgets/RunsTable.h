#pragma once

#include "history/RunRecord.h"

#include <QByteArray>
#include <QList>
#include <QSet>
#include <QTableView>

#include <optional>

class QSortFilterProxyModel;

namespace csm {

class RunsModel;

// The runs list: compact rows, the summary column taking the width the others leave, a status
// dot in the palette's colours, and sorting by any column (by another column than the start,
// every matching run is read first, so that the order is true of the history, not of a page).
// Columns fit what they show when rows come, never shrink while scrolling, and keep the width
// a person gives them; layoutState() has all of it for the next start. Tab leaves the table
// instead of walking its cells.
class RunsTable final : public QTableView
{
    Q_OBJECT

public:
    explicit RunsTable(RunsModel& runs, QWidget* parent = nullptr);

    RunsModel& runs() const { return m_runs; }
    // Rows as the table shows them (sorted), to the model's rows and back.
    int sourceRow(int viewRow) const;
    int viewRow(int sourceRow) const;
    qint64 currentRunId() const;
    // The model's row of the current run, or -1.
    int currentSourceRow() const;
    std::optional<RunRecord> runAtViewRow(int viewRow) const;
    // The selected runs' ids, in the order the table shows them.
    QList<qint64> selectedRunIds() const;
    int selectedCount() const;
    std::optional<RunRecord> singleSelectedRun() const;

    // Sorts by when the runs started: newest first, or oldest first (a session's cells).
    void sortByStart(Qt::SortOrder order);
    // Sorted by start, the table takes the model's order (oldest first for a session's cells,
    // as a notebook shows them); sorted by another column, it stays so.
    void followModelOrder();

    // The columns' widths, order and sorting, to give back to restoreLayoutState() next time.
    QByteArray layoutState() const;
    void restoreLayoutState(const QByteArray& state);

protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void fitColumns();
    void onSortChanged(int column, Qt::SortOrder order);
    // Whether the sort shown is another order than the model's own.
    bool sortNeedsEveryRun() const;

    RunsModel& m_runs;
    QSortFilterProxyModel* m_sorted = nullptr;
    QSet<int> m_userSizedColumns; // widened or narrowed by hand: left as the user made them
    QSet<int> m_fittedColumns;    // fitted to rows once: from then on only widened
    bool m_fittingColumns = false;
};

} // namespace csm
