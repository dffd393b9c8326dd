#include "models/RunsModel.h"

#include "history/HistoryStore.h"

#include <QLocale>

#include <algorithm>

namespace csm {

namespace {

QString durationText(const RunRecord& run)
{
    if (run.status == RunStatus::Running)
        return QStringLiteral("…");
    if (run.durationMs < 1000)
        return QStringLiteral("%1 ms").arg(run.durationMs);
    return QStringLiteral("%1 s").arg(double(run.durationMs) / 1000.0, 0, 'f', 1);
}

QString clientText(const RunRecord& run)
{
    if (run.clientName.isEmpty())
        return run.transport;
    return run.clientVersion.isEmpty() ? run.clientName
                                       : run.clientName + QLatin1Char(' ') + run.clientVersion;
}

} // namespace

RunsModel::RunsModel(HistoryStore& store, QObject* parent)
    : QAbstractTableModel(parent)
    , m_store(store)
{
    // Changes from before the model was made are in its first pages already.
    m_changeSeq = std::max<qint64>(0, m_store.lastChangeSeq());
    m_deletionSeq = m_store.deletionSeq();
    reload(kPageSize);
}

void RunsModel::setFilter(const HistoryQuery& filter)
{
    m_filter = filter;
    reload(kPageSize);
}

HistoryQuery RunsModel::pageQuery() const
{
    HistoryQuery query = m_filter;
    query.limit = kPageSize;
    query.offset = 0;
    query.beforeId.reset();
    query.sinceId.reset();
    query.includeContent = false;
    query.previewChars = 0;
    return query;
}

void RunsModel::reload(int atLeastRows)
{
    beginResetModel();
    HistoryQuery query = pageQuery();
    query.limit = std::max(atLeastRows, kPageSize);
    m_rows = m_store.list(query);
    m_exhausted = m_rows.size() < query.limit;
    endResetModel();
}

bool RunsModel::canFetchMore(const QModelIndex& parent) const
{
    return !parent.isValid() && !m_exhausted;
}

void RunsModel::fetchMore(const QModelIndex& parent)
{
    if (parent.isValid() || m_exhausted)
        return;
    HistoryQuery query = pageQuery();
    if (!m_rows.isEmpty())
        query.beforeId = m_rows.constLast().id;
    const QList<RunRecord> page = m_store.list(query);
    m_exhausted = page.size() < query.limit;
    if (page.isEmpty())
        return;
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + page.size() - 1));
    m_rows.append(page);
    endInsertRows();
}

void RunsModel::refresh()
{
    const qint64 deletionSeq = m_store.deletionSeq();
    if (deletionSeq >= 0 && deletionSeq != m_deletionSeq) {
        m_deletionSeq = deletionSeq;
        m_changeSeq = std::max<qint64>(m_changeSeq, m_store.lastChangeSeq());
        reload(int(m_rows.size()));
        return;
    }
    insertNewRuns();
    // Ends of loaded runs (and anything else updated): row by row.
    for (;;) {
        const QList<RunRecord> changes = m_store.changedSince(m_changeSeq, 500, 0);
        for (const RunRecord& changed : changes) {
            m_changeSeq = std::max(m_changeSeq, changed.changeSeq);
            updateLoadedRun(changed);
        }
        if (changes.size() < 500)
            break;
    }
}

void RunsModel::insertNewRuns()
{
    // New runs that match the filter, straight from the store (it applies the filter).
    HistoryQuery query = pageQuery();
    query.limit = 0;
    if (!m_rows.isEmpty())
        query.sinceId = m_rows.constFirst().id;
    else if (!m_exhausted)
        return; // nothing loaded yet: fetchMore() will read them
    const QList<RunRecord> fresh = m_store.list(query);
    if (fresh.isEmpty())
        return;
    beginInsertRows({}, 0, int(fresh.size() - 1));
    m_rows = fresh + m_rows;
    endInsertRows();
}

void RunsModel::updateLoadedRun(const RunRecord& changed)
{
    const int row = rowOf(changed.id);
    if (row < 0 || m_rows.at(row).changeSeq >= changed.changeSeq)
        return; // not loaded, or loaded in this state already (a run just inserted)
    // A run that ended with a status the filter leaves out goes.
    if (!m_filter.statuses.isEmpty() && !m_filter.statuses.contains(changed.status)) {
        beginRemoveRows({}, row, row);
        m_rows.removeAt(row);
        endRemoveRows();
        return;
    }
    m_rows[row] = changed;
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int RunsModel::rowOf(qint64 id) const
{
    // Ids decrease down the rows.
    const auto it =
        std::lower_bound(m_rows.cbegin(), m_rows.cend(), id,
                         [](const RunRecord& run, qint64 wanted) { return run.id > wanted; });
    return it != m_rows.cend() && it->id == id ? int(it - m_rows.cbegin()) : -1;
}

qint64 RunsModel::runId(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).id : 0;
}

std::optional<RunRecord> RunsModel::run(int row) const
{
    if (row < 0 || row >= m_rows.size())
        return std::nullopt;
    return m_rows.at(row);
}

int RunsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int RunsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunRecord& run = m_rows.at(index.row());
    if (role == RunIdRole)
        return run.id;
    if (role == StatusRole)
        return int(run.status);
    if (role == Qt::TextAlignmentRole && (index.column() == ExitCode || index.column() == Duration))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (static_cast<Column>(index.column())) {
    case Started:
        return role == Qt::ToolTipRole
                   ? run.startedAt.toLocalTime().toString(Qt::ISODateWithMs)
                   : run.startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case Client:
        return clientText(run);
    case Tool:
        return run.tool;
    case Status:
        return RunStatusTraits::toString(run.status);
    case ExitCode:
        return run.exitCode ? QString::number(*run.exitCode) : QString();
    case Duration:
        return durationText(run);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case Started:
        return tr("Started");
    case Client:
        return tr("Client");
    case Tool:
        return tr("Tool");
    case Status:
        return tr("Status");
    case ExitCode:
        return tr("Exit");
    case Duration:
        return tr("Duration");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace csm
