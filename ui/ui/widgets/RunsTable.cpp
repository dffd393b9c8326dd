#include "ui/widgets/RunsTable.h"

#include "ui/models/RunsModel.h"

#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QSortFilterProxyModel>
#include <QTimer>

#include <algorithm>

namespace csm {

RunsTable::RunsTable(RunsModel& runs, QWidget* parent)
    : QTableView(parent)
    , m_runs(runs)
    , m_sorted(new QSortFilterProxyModel(this))
{
    m_sorted->setSourceModel(&m_runs);
    m_sorted->setSortRole(RunsModel::SortRole);
    m_sorted->setSortCaseSensitivity(Qt::CaseInsensitive);
    m_sorted->setObjectName(QStringLiteral("sortedRuns"));
    setModel(m_sorted);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setAlternatingRowColors(true);
    setWordWrap(false);
    setShowGrid(false);
    // Tab goes on to the detail pane and the buttons; the arrows move through the rows.
    setTabKeyNavigation(false);
    setTextElideMode(Qt::ElideRight);
    verticalHeader()->hide();
    // Compact rows: a line of text and a little air, as the lists people keep open have.
    verticalHeader()->setMinimumSectionSize(fontMetrics().height() + 4);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);

    QHeaderView* header = horizontalHeader();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(QHeaderView::Interactive);
    // The summary takes what the other columns leave: the window's width is never wasted.
    header->setSectionResizeMode(RunsModel::Summary, QHeaderView::Stretch);
    header->setResizeContentsPrecision(0);
    header->setMinimumSectionSize(fontMetrics().horizontalAdvance(QStringLiteral("0000")));
    header->setMaximumSectionSize(fontMetrics().horizontalAdvance(QLatin1Char('M')) * 40);
    header->setSectionsMovable(true);
    header->setHighlightSections(false);
    connect(header, &QHeaderView::sectionResized, this, [this](int column) {
        if (!m_fittingColumns)
            m_userSizedColumns.insert(column);
    });
    setSortingEnabled(true);
    sortByStart(Qt::DescendingOrder);
    connect(header, &QHeaderView::sortIndicatorChanged, this, &RunsTable::onSortChanged);
    // New and changed rows may need wider columns; rows scrolled to never change them.
    connect(&m_runs, &QAbstractItemModel::rowsInserted, this, &RunsTable::fitColumns);
    connect(&m_runs, &QAbstractItemModel::modelReset, this, &RunsTable::fitColumns);
    // A new filter reads a page again: a sort the model's order does not give needs them all.
    connect(
        &m_runs, &QAbstractItemModel::modelReset, this,
        [this] {
            if (sortNeedsEveryRun())
                m_runs.readAll();
        },
        Qt::QueuedConnection);
    connect(&m_runs, &QAbstractItemModel::dataChanged, this, &RunsTable::fitColumns);
    m_runs.setPalette(palette());
}

void RunsTable::sortByStart(Qt::SortOrder order)
{
    sortByColumn(RunsModel::Started, order);
}

void RunsTable::followModelOrder()
{
    if (horizontalHeader()->sortIndicatorSection() == RunsModel::Started)
        sortByStart(m_runs.isOldestFirst() ? Qt::AscendingOrder : Qt::DescendingOrder);
}

bool RunsTable::sortNeedsEveryRun() const
{
    // The model holds the newest runs (a session's oldest cells) until scrolled further: any
    // other order is true only of all of them.
    if (horizontalHeader()->sortIndicatorSection() != RunsModel::Started)
        return true;
    const Qt::SortOrder modelOrder =
        m_runs.isOldestFirst() ? Qt::AscendingOrder : Qt::DescendingOrder;
    return horizontalHeader()->sortIndicatorOrder() != modelOrder;
}

void RunsTable::onSortChanged(int, Qt::SortOrder)
{
    if (sortNeedsEveryRun())
        m_runs.readAll();
}

void RunsTable::showEvent(QShowEvent* event)
{
    QTableView::showEvent(event);
    // After the layout this show triggers: the rows in view are known then.
    QTimer::singleShot(0, this, &RunsTable::fitColumns);
}

void RunsTable::changeEvent(QEvent* event)
{
    QTableView::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        m_runs.setPalette(palette());
}

void RunsTable::fitColumns()
{
    // Each column as wide as what the rows in view show, and never narrower than it was: a
    // width that follows the rows scrolled past makes the table jump. Measuring the rows in
    // view only keeps a run's end cheap; a client name of absurd length is cut (its tooltip has
    // it all).
    if (m_runs.rowCount() == 0)
        return; // nothing to fit yet: the first rows will say
    m_fittingColumns = true;
    for (int column = 0; column < RunsModel::ColumnCount; ++column) {
        if (column == RunsModel::Summary || m_userSizedColumns.contains(column))
            continue;
        const int fits = std::min(
            std::max(sizeHintForColumn(column), horizontalHeader()->sectionSizeHint(column)),
            horizontalHeader()->maximumSectionSize());
        // The first rows set the width; later ones only widen it.
        if (!m_fittedColumns.contains(column) || fits > columnWidth(column))
            setColumnWidth(column, fits);
        m_fittedColumns.insert(column);
    }
    m_fittingColumns = false;
}

int RunsTable::sourceRow(int viewRow) const
{
    return m_sorted->mapToSource(m_sorted->index(viewRow, 0)).row();
}

int RunsTable::viewRow(int sourceRow) const
{
    return m_sorted->mapFromSource(m_runs.index(sourceRow, 0)).row();
}

qint64 RunsTable::currentRunId() const
{
    return m_runs.runId(currentSourceRow());
}

int RunsTable::currentSourceRow() const
{
    const QModelIndex current = currentIndex();
    return current.isValid() ? m_sorted->mapToSource(current).row() : -1;
}

std::optional<RunRecord> RunsTable::runAtViewRow(int viewRow) const
{
    return m_runs.run(sourceRow(viewRow));
}

QList<qint64> RunsTable::selectedRunIds() const
{
    QList<int> rows;
    for (const QModelIndex& index : selectionModel()->selectedRows())
        rows.append(index.row());
    std::sort(rows.begin(), rows.end());
    QList<qint64> ids;
    ids.reserve(rows.size());
    for (const int row : std::as_const(rows)) {
        if (const qint64 id = m_runs.runId(sourceRow(row)); id > 0)
            ids.append(id);
    }
    return ids;
}

int RunsTable::selectedCount() const
{
    return int(selectionModel()->selectedRows().size());
}

std::optional<RunRecord> RunsTable::singleSelectedRun() const
{
    const QModelIndexList rows = selectionModel()->selectedRows();
    if (rows.size() != 1)
        return std::nullopt;
    return runAtViewRow(rows.constFirst().row());
}

QByteArray RunsTable::layoutState() const
{
    return horizontalHeader()->saveState();
}

void RunsTable::restoreLayoutState(const QByteArray& state)
{
    m_fittingColumns = true;
    const bool restored = horizontalHeader()->restoreState(state);
    m_fittingColumns = false;
    if (!restored)
        return;
    // A layout the person kept is theirs: no column is fitted over it. The summary stretches
    // whatever the saved state said, and the sort it had applies (reading what it needs).
    horizontalHeader()->setSectionResizeMode(RunsModel::Summary, QHeaderView::Stretch);
    for (int column = 0; column < RunsModel::ColumnCount; ++column)
        m_userSizedColumns.insert(column);
    sortByColumn(horizontalHeader()->sortIndicatorSection(),
                 horizontalHeader()->sortIndicatorOrder());
    onSortChanged(horizontalHeader()->sortIndicatorSection(),
                  horizontalHeader()->sortIndicatorOrder());
}

} // namespace csm
