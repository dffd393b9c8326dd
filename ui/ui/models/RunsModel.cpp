#include "ui/models/RunsModel.h"

#include "history/HistoryStore.h"
#include "runtime/Language.h"
#include "ui/models/RunStatusLook.h"
#include "ui/models/RunSummary.h"

#include <QElapsedTimer>
#include <QIcon>
#include <QSet>
#include <QTextDocument>

#include <algorithm>
#include <limits>

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

// The language's name as people write it; a language this build does not know, as recorded.
QString languageText(const RunRecord& run)
{
    if (const std::optional<csm::Language> language = LanguageTraits::parse(run.language))
        return LanguageTraits::displayName(*language);
    return run.language.isEmpty() ? run.tool : run.language;
}

} // namespace

RunsModel::RunsModel(HistoryStore& store, QObject* parent)
    : QAbstractTableModel(parent)
    , m_store(store)
{
    m_continue.setSingleShot(true);
    connect(&m_continue, &QTimer::timeout, this, [this] { scanSlice(true); });
    // Changes from before the model was made are in its first pages already.
    m_changeSeq = std::max<qint64>(0, m_store.queries().lastChangeSeq().valueOr(0));
    m_deletionSeq = m_store.queries().deletionSeq().valueOr(-1);
    reload(kPageSize);
}

void RunsModel::setFilter(const HistoryQuery& filter)
{
    m_filter = filter;
    // What one window costs depends on the filter: start small again.
    m_window = kFirstWindow;
    reload(kPageSize);
}

bool RunsModel::isFiltered() const
{
    return !m_filter.statuses.isEmpty() || !m_filter.language.isEmpty() ||
           !m_filter.clientName.isEmpty() || m_filter.exactClientName || !m_filter.text.isEmpty() ||
           m_filter.startedFrom.isValid() || m_filter.startedBefore.isValid();
}

HistoryQuery RunsModel::pageQuery() const
{
    HistoryQuery query = m_filter;
    query.limit = kPageSize;
    query.offset = 0;
    query.beforeId.reset();
    query.sinceId.reset();
    query.ids.clear();
    query.includeContent = false;
    // The start of the code and the end of Stderr: what the summary column needs, no more.
    query.previewChars = RunSummary::kReadChars;
    query.stderrTailChars = RunSummary::kReadChars;
    return query;
}

Expected<QList<RunRecord>> RunsModel::listRows(const HistoryQuery& query)
{
    ++m_rowQueries;
    Expected<QList<RunRecord>> runs = m_store.queries().list(query);
    if (runs) {
        for (RunRecord& run : *runs)
            slim(run);
    }
    return runs;
}

void RunsModel::slim(RunRecord& run)
{
    // 100,000 loaded rows of a dozen strings each take a noticeable time to free when the table
    // is reset (a new filter): a row keeps only what the table shows, and its repeated strings
    // (client, tool...) share one copy each.
    const auto intern = [this](QString& text) {
        const auto known = m_strings.constFind(text);
        if (known != m_strings.constEnd())
            text = *known;
        else
            m_strings.insert(text);
    };
    run.serverInstance.clear();
    run.hostName.clear();
    run.sessionId.clear();
    run.image.clear();
    run.limits = {};
    // The summary's lines, and nothing more of the code, Stderr or message.
    run.code = RunSummary::firstCodeLine(run.code);
    run.stderrText = RunSummary::lastLine(run.stderrText);
    run.errorMessage = RunSummary::lastLine(run.errorMessage.section(u'\n', 0, 0));
    run.stdoutText.clear();
    run.filesKey.clear();
    run.files.clear();
    intern(run.transport);
    intern(run.clientName);
    intern(run.clientVersion);
    intern(run.tool);
    intern(run.language);
    intern(run.sessionName);
    intern(run.sessionKey);
}

qint64 RunsModel::newestIdInStore()
{
    HistoryQuery newest;
    newest.limit = 1;
    newest.includeContent = false;
    const QList<RunRecord> runs = listRows(newest).valueOr({});
    return runs.isEmpty() ? 0 : runs.constFirst().id;
}

void RunsModel::reload(int atLeastRows)
{
    m_continue.stop();
    beginResetModel();
    m_rows.clear();
    // Read before the rows: a run started meanwhile is newer, and refresh() brings it.
    m_newestId = std::max(m_newestId, newestIdInStore());
    m_scanBelow = m_newestId + 1;
    m_exhausted = m_newestId == 0;
    // A session's cells are read in full: shown oldest first, a page read later would go on top.
    m_wanted = isOldestFirst() ? std::numeric_limits<int>::max() : std::max(atLeastRows, kPageSize);
    scanSlice(false);
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
    m_wanted = std::max(m_wanted, kPageSize);
    if (!m_continue.isActive())
        scanSlice(true);
}

void RunsModel::scanSlice(bool notify)
{
    // Reads pages below m_scanBelow until the rows wanted are there, the history is read to its
    // start, or the slice's time is up; the rest waits for the next turn of the event loop, so
    // the UI thread is never held up for long. Under a filter, each query covers a window of ids
    // only: a filter that matches few runs (a rare word) would otherwise read the whole table in
    // one query.
    QElapsedTimer slice;
    slice.start();
    const bool windowed = isFiltered();
    QList<RunRecord> gathered;
    while (m_wanted > 0 && !m_exhausted) {
        HistoryQuery query = pageQuery();
        query.beforeId = m_scanBelow;
        query.limit = std::min(m_wanted, kMaxRowsPerRead);
        qint64 floor = 0;
        if (windowed) {
            floor = std::max<qint64>(0, m_scanBelow - m_window);
            query.sinceId = floor;
        }
        QElapsedTimer step;
        step.start();
        const Expected<QList<RunRecord>> read = listRows(query);
        if (!read)
            break; // logged by the store; the next fetchMore or reload tries again
        const QList<RunRecord>& page = *read;
        gathered += page;
        m_wanted -= int(page.size());
        if (page.size() == query.limit)
            m_scanBelow = page.constLast().id;
        else if (floor > 0)
            m_scanBelow = floor + 1;
        else
            m_exhausted = true;
        if (windowed) {
            // Aim each query at kScanStepMs, growing at most fourfold at a time.
            const double spent = std::max(0.1, double(step.nsecsElapsed()) / 1e6);
            const double scale = std::min(4.0, double(kScanStepMs) / spent);
            m_window = std::clamp(qint64(double(m_window) * scale), kMinWindow, kMaxWindow);
        }
        if (slice.elapsed() >= kScanSliceMs)
            break;
    }
    if (m_exhausted)
        m_wanted = 0;
    if (!gathered.isEmpty()) {
        if (notify) {
            // Older than every row: below them, or above them when the oldest come first.
            const int first = isOldestFirst() ? 0 : int(m_rows.size());
            beginInsertRows({}, first, first + int(gathered.size()) - 1);
        }
        m_rows.append(gathered);
        if (notify)
            endInsertRows();
    }
    if (m_wanted > 0 && !m_exhausted)
        m_continue.start(0);
}

bool RunsModel::isScanning() const
{
    return m_wanted > 0 && !m_exhausted;
}

void RunsModel::readAll()
{
    if (m_exhausted)
        return;
    m_wanted = std::numeric_limits<int>::max();
    if (!m_continue.isActive())
        scanSlice(true);
}

void RunsModel::refresh()
{
    const qint64 deletionSeq = m_store.queries().deletionSeq().valueOr(-1);
    if (deletionSeq >= 0 && deletionSeq != m_deletionSeq) {
        m_deletionSeq = deletionSeq;
        m_changeSeq = std::max<qint64>(m_changeSeq, m_store.queries().lastChangeSeq().valueOr(0));
        reload(int(m_rows.size()));
        return;
    }
    // What changed since the last look, whatever the filter: one indexed read, and nothing
    // more when nothing changed.
    QList<RunRecord> changes;
    for (;;) {
        const QList<RunRecord> page =
            m_store.queries().changedSince(m_changeSeq, kChangesPerRead, 0).valueOr({});
        for (const RunRecord& changed : page)
            m_changeSeq = std::max(m_changeSeq, changed.changeSeq);
        changes += page;
        if (page.size() < kChangesPerRead)
            break;
    }
    if (changes.isEmpty())
        return;

    // Loaded runs are updated in place (ends of runs, mostly). The others may have to join:
    // runs newer than any seen so far, and, under a filter that a run can come to match when it
    // ends (status, text in its output), runs within the loaded range. Only those are looked up,
    // by id; the filter itself is applied by the store.
    const bool endCanMatch = !m_filter.statuses.isEmpty() || !m_filter.text.isEmpty();
    QList<qint64> candidates;
    QList<qint64> loaded;
    QSet<qint64> seen; // a run updated again between two reads comes twice
    for (const RunRecord& changed : std::as_const(changes)) {
        if (const int row = rowOf(changed.id); row >= 0) {
            if (m_rows.at(row).changeSeq < changed.changeSeq && !seen.contains(changed.id))
                loaded.append(changed.id);
            seen.insert(changed.id);
            continue;
        }
        const bool inLoadedRange = m_exhausted || changed.id >= m_scanBelow;
        if ((changed.id > m_newestId || (endCanMatch && inLoadedRange)) &&
            !seen.contains(changed.id)) {
            seen.insert(changed.id);
            candidates.append(changed.id);
        }
    }
    for (const RunRecord& changed : std::as_const(changes))
        m_newestId = std::max(m_newestId, changed.id);
    updateLoadedRuns(loaded);
    insertRuns(candidates);
}

void RunsModel::updateLoadedRuns(const QList<qint64>& ids)
{
    // Read again as the rows were read (the start of the code, the end of Stderr): the
    // changes list carries no content.
    for (qsizetype first = 0; first < ids.size(); first += kIdsPerRead) {
        HistoryQuery query = pageQuery();
        query.limit = 0;
        query.ids = ids.mid(first, kIdsPerRead);
        const Expected<QList<RunRecord>> runs = listRows(query);
        if (!runs)
            continue; // logged by the store; the rows stay as they were
        QSet<qint64> stillMatching;
        for (const RunRecord& run : *runs) {
            stillMatching.insert(run.id);
            updateLoadedRun(run);
        }
        // A run the filter no longer matches (it ended with a status left out) goes.
        for (const qint64 id : std::as_const(query.ids)) {
            const int row = rowOf(id);
            if (stillMatching.contains(id) || row < 0)
                continue;
            const int shown = shownRow(row, m_rows.size());
            beginRemoveRows({}, shown, shown);
            m_rows.removeAt(row);
            endRemoveRows();
        }
    }
}

Expected<void> RunsModel::deleteRuns(const QList<qint64>& ids)
{
    const qint64 before = m_store.queries().deletionSeq().valueOr(-1);
    if (Expected<void> removed = m_store.ledger().remove(ids); !removed)
        return removed;
    const qint64 after = m_store.queries().deletionSeq().valueOr(-1);
    // The counter moved by this deletion alone: no need for refresh() to reload. Had another
    // process deleted runs since the last refresh, it moved further, and refresh() reloads.
    const bool onlyOurs = before == m_deletionSeq && after >= before && after <= before + 1;
    if (onlyOurs)
        m_deletionSeq = after;
    if (ids.size() > kMaxRowsRemovedOneByOne) {
        reload(int(m_rows.size() - ids.size()));
        return {};
    }
    for (const qint64 id : ids) {
        const int row = rowOf(id);
        if (row < 0)
            continue;
        const int shown = shownRow(row, m_rows.size());
        beginRemoveRows({}, shown, shown);
        m_rows.removeAt(row);
        endRemoveRows();
    }
    return {};
}

void RunsModel::insertRuns(const QList<qint64>& ids)
{
    QList<RunRecord> joining;
    for (qsizetype first = 0; first < ids.size(); first += kIdsPerRead) {
        HistoryQuery query = pageQuery();
        query.limit = 0;
        query.ids = ids.mid(first, kIdsPerRead);
        joining += listRows(query).valueOr({});
    }
    // Newest first, as the rows are.
    std::sort(joining.begin(), joining.end(),
              [](const RunRecord& a, const RunRecord& b) { return a.id > b.id; });
    // Those newer than every loaded row go on top in one insertion; the others one by one.
    qsizetype onTop = 0;
    while (onTop < joining.size() &&
           (m_rows.isEmpty() || joining.at(onTop).id > m_rows.constFirst().id))
        ++onTop;
    if (onTop > 0) {
        // Newer than every row: above them, or below them when the oldest come first.
        const int first = isOldestFirst() ? int(m_rows.size()) : 0;
        beginInsertRows({}, first, first + int(onTop) - 1);
        // Prepending to a QList does not copy the rows below (100,000 of them, scrolled to).
        for (qsizetype i = onTop - 1; i >= 0; --i)
            m_rows.prepend(joining.at(i));
        endInsertRows();
    }
    for (qsizetype i = onTop; i < joining.size(); ++i) {
        const RunRecord& run = joining.at(i);
        const auto at =
            std::lower_bound(m_rows.cbegin(), m_rows.cend(), run.id,
                             [](const RunRecord& row, qint64 wanted) { return row.id > wanted; });
        if (run.id < m_scanBelow && !m_exhausted)
            continue; // below what was read so far: fetchMore() will read it
        if (at != m_rows.cend() && at->id == run.id)
            continue;
        const int row = int(at - m_rows.cbegin());
        const int shown = shownRow(row, m_rows.size() + 1);
        beginInsertRows({}, shown, shown);
        m_rows.insert(row, run);
        endInsertRows();
    }
}

void RunsModel::updateLoadedRun(const RunRecord& changed)
{
    const int row = rowOf(changed.id);
    if (row < 0 || m_rows.at(row).changeSeq >= changed.changeSeq)
        return; // not loaded, or loaded in this state already (a run just inserted)
    const int shown = shownRow(row, m_rows.size());
    m_rows[row] = changed; // read through listRows(): slim already
    Q_EMIT dataChanged(index(shown, 0), index(shown, ColumnCount - 1));
}

int RunsModel::rowOf(qint64 id) const
{
    // Ids decrease down the rows.
    const auto it =
        std::lower_bound(m_rows.cbegin(), m_rows.cend(), id,
                         [](const RunRecord& run, qint64 wanted) { return run.id > wanted; });
    return it != m_rows.cend() && it->id == id ? int(it - m_rows.cbegin()) : -1;
}

int RunsModel::rowOfRun(qint64 id) const
{
    const int stored = rowOf(id);
    return stored < 0 ? -1 : shownRow(stored, m_rows.size());
}

int RunsModel::shownRow(qsizetype stored, qsizetype count) const
{
    return int(isOldestFirst() ? count - 1 - stored : stored);
}

int RunsModel::storedRow(int shown) const
{
    return shownRow(shown, m_rows.size()); // the same mapping both ways
}

qint64 RunsModel::runId(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(storedRow(row)).id : 0;
}

std::optional<RunRecord> RunsModel::run(int row) const
{
    if (row < 0 || row >= m_rows.size())
        return std::nullopt;
    return m_rows.at(storedRow(row));
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
    const RunRecord& run = m_rows.at(storedRow(index.row()));
    if (role == RunIdRole)
        return run.id;
    if (role == StatusRole)
        return int(run.status);
    if (role == OutputFileCountRole)
        return run.outputFileCount;
    const auto column = static_cast<Column>(index.column());
    if (role == SortRole)
        return sortKey(run, column);
    if (role == Qt::DecorationRole && column == Files && run.outputFileCount > 0)
        return QIcon::fromTheme(QStringLiteral("mail-attachment"));
    // A swatch of the status's colour (the delegate draws a QColor as one).
    if (role == Qt::DecorationRole && column == Status)
        return RunStatusLook::colour(run.status, m_palette);
    // A failure's words in its colour, where the eye looks for them.
    if (role == Qt::ForegroundRole && column == Summary && RunStatusLook::isFailure(run.status) &&
        !RunSummary::problem(run).isEmpty())
        return RunStatusLook::colour(run.status, m_palette);
    if (role == Qt::ForegroundRole && column == Status)
        return RunStatusLook::colour(run.status, m_palette);
    if (role == Qt::TextAlignmentRole &&
        (index.column() == ExitCode || index.column() == Duration || index.column() == Files))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        // A tooltip that looks like HTML is shown as HTML, and clients name themselves: escaped,
        // "<img src=x>" shows as those characters.
        const QString tip = text(run, static_cast<Column>(index.column()), true);
        return tip.isEmpty() ? QVariant() : QVariant(Qt::convertFromPlainText(tip));
    }
    if (role != Qt::DisplayRole)
        return {};
    return text(run, static_cast<Column>(index.column()), false);
}

QString RunsModel::text(const RunRecord& run, Column column, bool toolTip)
{
    switch (column) {
    case Started:
        return toolTip
                   ? run.startedAt.toLocalTime().toString(Qt::ISODateWithMs)
                   : run.startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case Client:
        return clientText(run);
    case Language:
        // The tool's name is long (run_python_code) and says little more than the language.
        return toolTip ? tr("Tool: %1").arg(run.tool) : languageText(run);
    case Session:
        if (run.sessionName.isEmpty())
            return {};
        if (run.cellNumber > 0) {
            return toolTip ? tr("Cell %1 of the session \"%2\"")
                                 .arg(run.cellNumber)
                                 .arg(run.sessionName)
                           : tr("%1 #%2").arg(run.sessionName).arg(run.cellNumber);
        }
        // Refused (the session was busy, or could not start), or still waiting for its turn.
        return toolTip ? tr("A call for the session \"%1\" that did not run as one of its cells")
                             .arg(run.sessionName)
                       : run.sessionName;
    case Status:
        return toolTip ? RunStatusLook::explanation(run.status) : RunStatusLook::label(run.status);
    case Summary:
        return RunSummary::of(run);
    case ExitCode:
        return run.exitCode ? QString::number(*run.exitCode) : QString();
    case Duration:
        return durationText(run);
    case Files:
        if (run.outputFileCount <= 0)
            return {};
        if (!toolTip)
            return QString::number(run.outputFileCount);
        return run.outputFileCount == 1
                   ? tr("1 output file: see the Files tab")
                   : tr("%1 output files: see the Files tab").arg(run.outputFileCount);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RunsModel::sortKey(const RunRecord& run, Column column)
{
    switch (column) {
    case Started:
        return run.id; // in the order they started, to the millisecond and beyond
    case ExitCode:
        return run.exitCode ? QVariant(*run.exitCode) : QVariant(-1'000'000);
    case Duration:
        // A run still going has taken longest so far.
        return run.status == RunStatus::Running ? std::numeric_limits<qint64>::max()
                                                : run.durationMs;
    case Files:
        return run.outputFileCount;
    case Status:
    case Summary:
    case Client:
    case Language:
    case Session:
        return text(run, column, false);
    case ColumnCount:
        break;
    }
    return {};
}

void RunsModel::setPalette(const QPalette& palette)
{
    m_palette = palette;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                           {Qt::DecorationRole, Qt::ForegroundRole});
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
    case Language:
        return tr("Language");
    case Session:
        return tr("Session");
    case Status:
        return tr("Status");
    case Summary:
        return tr("What it did");
    case ExitCode:
        return tr("Exit");
    case Duration:
        return tr("Duration");
    case Files:
        return tr("Files");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace csm
