#include "ui/pages/RunsPage.h"

#include "history/HistoryStore.h"
#include "history/InterpreterSessionExporter.h"
#include "history/RunExporter.h"
#include "runtime/Language.h"
#include "ui/models/RunsModel.h"
#include "ui/models/RunStatusLook.h"
#include "ui/pages/RunDetailPane.h"
#include "ui/pages/RunStops.h"
#include "ui/Plural.h"
#include "ui/widgets/RunsEmptyNotice.h"
#include "ui/widgets/RunsFilterNote.h"
#include "ui/widgets/RunsTable.h"

#include <QAction>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSettings>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace csm {

namespace {
constexpr int kFilterDelayMs = 250;
// Runs loaded in full per query for an export: a few hundred, however large the selection.
constexpr int kExportBatch = 200;
constexpr RunStatus kStatuses[] = {
    RunStatus::Running,   RunStatus::Ok,  RunStatus::Error,       RunStatus::Timeout,
    RunStatus::Cancelled, RunStatus::Oom, RunStatus::EngineError, RunStatus::Interrupted,
};
constexpr Language kLanguages[] = {Language::Python, Language::JavaScript};

QString outputOf(const RunRecord& run)
{
    if (run.stderrText.isEmpty())
        return run.stdoutText;
    if (run.stdoutText.isEmpty() || run.stdoutText.endsWith(u'\n'))
        return run.stdoutText + run.stderrText;
    return run.stdoutText + u'\n' + run.stderrText;
}

QDateTime startOf(RunsPage::TimeRange range)
{
    const QDateTime now = QDateTime::currentDateTime();
    switch (range) {
    case RunsPage::TimeRange::Any:
        return {};
    case RunsPage::TimeRange::LastHour:
        return now.addSecs(-3600);
    case RunsPage::TimeRange::Today:
        return now.date().startOfDay();
    case RunsPage::TimeRange::Last7Days:
        return now.addDays(-7);
    case RunsPage::TimeRange::Last30Days:
        return now.addDays(-30);
    case RunsPage::TimeRange::Custom:
        return {};
    }
    return {};
}

} // namespace

RunsPage::RunsPage(HistoryStore& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_model(new RunsModel(store, this))
    , m_text(new QLineEdit(this))
    , m_status(new QComboBox(this))
    , m_language(new QComboBox(this))
    , m_client(new QComboBox(this))
    , m_time(new QComboBox(this))
    , m_session(new QComboBox(this))
    , m_actions(new QToolBar(this))
    , m_message(new QLabel(this))
    , m_filterNote(new RunsFilterNote(store, this))
    , m_table(new RunsTable(*m_model, this))
    , m_empty(new RunsEmptyNotice(this))
    , m_tableOrNotice(new QStackedWidget(this))
    , m_detail(new RunDetailPane(this))
    , m_split(new QSplitter(Qt::Vertical, this))
    , m_stops(new RunStops(store, this))
{
    // Messages quote file names and errors, never markup.
    m_message->setTextFormat(Qt::PlainText);
    m_text->setPlaceholderText(tr("Filter by code or output"));
    m_text->setClearButtonEnabled(true);
    m_status->addItem(tr("Any status"));
    for (RunStatus status : kStatuses)
        m_status->addItem(RunStatusLook::label(status), int(status));
    m_language->addItem(tr("Any language"));
    for (Language language : kLanguages)
        m_language->addItem(LanguageTraits::displayName(language), LanguageTraits::id(language));
    m_client->addItem(tr("Any client"));
    m_time->addItem(tr("Any time"), int(TimeRange::Any));
    m_time->addItem(tr("Last hour"), int(TimeRange::LastHour));
    m_time->addItem(tr("Today"), int(TimeRange::Today));
    m_time->addItem(tr("Last 7 days"), int(TimeRange::Last7Days));
    m_time->addItem(tr("Last 30 days"), int(TimeRange::Last30Days));
    m_session->addItem(tr("Any session"));
    // A long client or session name widens the list it opens, not the box: the text filter
    // keeps room to type in at 1024 pixels.
    for (QComboBox* named : {m_client, m_session}) {
        named->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        named->setMinimumContentsLength(14);
    }
    m_text->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('M')) * 16);
    m_session->setToolTip(
        tr("Only the cells of one persistent session, in order (the first at the top)"));

    // One set of actions for the buttons, the table's context menu and the shortcuts; the
    // shortcuts act while the table (or a button) has the focus, so that Ctrl+C in the detail
    // pane still copies the text selected there.
    const auto action = [this](const QString& text, const QString& tip) {
        auto* created = new QAction(text, this);
        created->setToolTip(tip);
        created->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        return created;
    };
    m_copyCode = action(tr("Copy code"), tr("Copy the code of the selected runs"));
    m_copyCode->setShortcut(QKeySequence::Copy);
    m_copyOutput = action(tr("Copy output"), tr("Copy what the selected runs printed"));
    m_export = action(tr("Export…"), tr("Save the selected runs as JSON or CSV"));
    m_exportSession = action(tr("Export session…"),
                             tr("Save the session's cells, in order, as a Jupyter notebook or a "
                                "script: the chosen session, or the selected run's"));
    m_delete = action(tr("Delete…"), tr("Delete the selected runs from the history"));
    m_delete->setShortcut(QKeySequence::Delete);
    m_rerun = action(tr("Re-run"), tr("Run the selected run's code again, as a new run"));
    const QList<QAction*> actions{m_copyCode,      m_copyOutput, m_export,
                                  m_exportSession, m_delete,     m_rerun};
    m_actions->addActions(actions);
    m_actions->setToolButtonStyle(Qt::ToolButtonTextOnly);
    // Reachable with Tab, as buttons are (a tool bar's are not by default).
    for (QAction* each : actions)
        m_actions->widgetForAction(each)->setFocusPolicy(Qt::TabFocus);
    m_table->addActions(actions);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(m_copyCode, &QAction::triggered, this, &RunsPage::copyCode);
    connect(m_copyOutput, &QAction::triggered, this, &RunsPage::copyOutput);
    connect(m_export, &QAction::triggered, this, &RunsPage::chooseExportFile);
    connect(m_exportSession, &QAction::triggered, this, &RunsPage::chooseSessionExportFile);
    connect(m_delete, &QAction::triggered, this, &RunsPage::confirmDelete);
    connect(m_rerun, &QAction::triggered, this, &RunsPage::requestRerun);

    auto* filters = new QHBoxLayout;
    filters->addWidget(m_text, 1);
    filters->addWidget(m_status);
    filters->addWidget(m_language);
    filters->addWidget(m_client);
    filters->addWidget(m_time);
    filters->addWidget(m_session);
    auto* actionsRow = new QHBoxLayout;
    actionsRow->addWidget(m_actions);
    actionsRow->addWidget(m_message, 1);
    m_tableOrNotice->addWidget(m_table);
    m_tableOrNotice->addWidget(m_empty);
    connect(m_empty, &RunsEmptyNotice::connectAssistantRequested, this,
            &RunsPage::connectAssistantRequested);
    m_split->addWidget(m_tableOrNotice);
    m_split->addWidget(m_detail);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);
    m_split->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(filters);
    layout->addWidget(m_filterNote);
    layout->addLayout(actionsRow);
    layout->addWidget(m_split, 1);

    m_filterDelay.setSingleShot(true);
    connect(&m_filterDelay, &QTimer::timeout, this, &RunsPage::applyFilter);
    connect(m_text, &QLineEdit::textChanged, this, [this] { m_filterDelay.start(kFilterDelayMs); });
    for (QComboBox* combo : {m_status, m_language, m_client, m_time, m_session})
        connect(combo, &QComboBox::currentIndexChanged, this, &RunsPage::applyFilter);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &RunsPage::showSelectedRun);
    connect(m_detail, &RunDetailPane::stopRequested, m_stops, &RunStops::stop);
    connect(m_stops, &RunStops::said, this, &RunsPage::setMessage);
    connect(m_stops, &RunStops::failed, m_detail, &RunDetailPane::stopFailed);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &RunsPage::updateActions);
    // A run that ends while it is shown gets its output.
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex& topLeft, const QModelIndex& bottomRight) {
                const int row = m_table->currentSourceRow();
                if (row >= topLeft.row() && row <= bottomRight.row())
                    showSelectedRun();
                updateActions();
                m_stops->checkEnded();
            });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        showSelectedRun();
        updateActions();
        updateEmptyState();
    });
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, [this] {
        updateActions();
        updateEmptyState();
    });
    connect(m_model, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex&, int first, int last) {
                noteNewClients(first, last);
                updateEmptyState();
            });
    // A filter that matches few of many runs is read a slice at a time: whether it matched
    // nothing is known once the reading is done, which no row signal tells.
    connect(&m_refresh, &QTimer::timeout, this, [this] {
        const qint64 seen = m_model->changeSeq();
        m_model->refresh();
        updateEmptyState();
        // Counted again only when a run started, ended or went: counting costs a query.
        if (m_model->changeSeq() != seen)
            updateFilterNote();
    });
    connect(m_filterNote, &RunsFilterNote::resetRequested, this, &RunsPage::resetFilters);
    // Escape in the text filter clears every filter, as Reset does.
    auto* escape =
        new QShortcut(QKeySequence(Qt::Key_Escape), m_text, nullptr, nullptr, Qt::WidgetShortcut);
    connect(escape, &QShortcut::activated, this, &RunsPage::resetFilters);
    // Once per turn of the event loop: a deletion removes its rows one by one.
    const auto noteDue = [this] {
        if (!m_filterNoteDue.isActive())
            m_filterNoteDue.start(0);
    };
    connect(m_model, &QAbstractItemModel::modelReset, this, noteDue);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, noteDue);
    m_filterNoteDue.setSingleShot(true);
    connect(&m_filterNoteDue, &QTimer::timeout, this, &RunsPage::updateFilterNote);
    m_refresh.start(kRefreshIntervalMs);
    connect(&m_clientsRefresh, &QTimer::timeout, this, &RunsPage::refreshClients);
    connect(&m_clientsRefresh, &QTimer::timeout, this, &RunsPage::refreshSessions);
    m_clientsRefresh.start(kClientsRefreshMs);
    refreshClients();
    refreshSessions();
    updateActions();
    updateEmptyState();
    // Stable names: tests find the widgets by them (findChild).
    m_model->setObjectName(QStringLiteral("model"));
    m_table->setObjectName(QStringLiteral("table"));
    m_detail->setObjectName(QStringLiteral("detail"));
    m_split->setObjectName(QStringLiteral("listAndDetail"));
    m_empty->setObjectName(QStringLiteral("emptyNotice"));
    m_text->setObjectName(QStringLiteral("textFilter"));
    m_status->setObjectName(QStringLiteral("statusFilter"));
    m_language->setObjectName(QStringLiteral("languageFilter"));
    m_client->setObjectName(QStringLiteral("clientFilter"));
    m_time->setObjectName(QStringLiteral("timeFilter"));
    m_session->setObjectName(QStringLiteral("sessionFilter"));
    m_exportSession->setObjectName(QStringLiteral("exportSessionAction"));
    m_actions->setObjectName(QStringLiteral("actionsBar"));
    m_copyCode->setObjectName(QStringLiteral("copyCodeAction"));
    m_copyOutput->setObjectName(QStringLiteral("copyOutputAction"));
    m_export->setObjectName(QStringLiteral("exportAction"));
    m_delete->setObjectName(QStringLiteral("deleteAction"));
    m_rerun->setObjectName(QStringLiteral("rerunAction"));
    m_message->setObjectName(QStringLiteral("message"));
}

void RunsPage::setMessage(const QString& text)
{
    m_message->setText(text);
}

void RunsPage::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const Qt::Orientation wanted = width() >= kSideBySideWidth ? Qt::Horizontal : Qt::Vertical;
    if (wanted == m_split->orientation())
        return;
    // Each arrangement keeps the sizes the person gave it.
    m_splitSizes[m_split->orientation()] = m_split->sizes();
    m_split->setOrientation(wanted);
    const QList<int> kept = m_splitSizes.value(wanted);
    if (kept.size() == 2) {
        m_split->setSizes(kept);
        return;
    }
    const int length = wanted == Qt::Horizontal ? m_split->width() : m_split->height();
    m_split->setSizes({length * 3 / 5, length - length * 3 / 5});
}

void RunsPage::saveLayout(QSettings& settings) const
{
    QHash<Qt::Orientation, QList<int>> sizes = m_splitSizes;
    sizes[m_split->orientation()] = m_split->sizes();
    settings.setValue(QStringLiteral("runs/columns"), m_table->layoutState());
    for (const Qt::Orientation orientation : {Qt::Horizontal, Qt::Vertical}) {
        QVariantList list;
        for (const int size : sizes.value(orientation))
            list.append(size);
        if (!list.isEmpty())
            settings.setValue(splitKey(orientation), list);
    }
}

void RunsPage::restoreLayout(const QSettings& settings)
{
    m_table->restoreLayoutState(settings.value(QStringLiteral("runs/columns")).toByteArray());
    for (const Qt::Orientation orientation : {Qt::Horizontal, Qt::Vertical}) {
        QList<int> sizes;
        for (const QVariant& size : settings.value(splitKey(orientation)).toList())
            sizes.append(size.toInt());
        if (sizes.size() == 2)
            m_splitSizes[orientation] = sizes;
    }
    if (const QList<int> kept = m_splitSizes.value(m_split->orientation()); kept.size() == 2)
        m_split->setSizes(kept);
}

QString RunsPage::splitKey(Qt::Orientation orientation)
{
    return orientation == Qt::Horizontal ? QStringLiteral("runs/splitBeside")
                                         : QStringLiteral("runs/splitBelow");
}

void RunsPage::updateFilterNote()
{
    m_filterNote->update(m_model->filter(), m_model->rowCount(), m_model->isComplete());
}

void RunsPage::setFiltersQuiet(bool quiet)
{
    for (QWidget* filter : {static_cast<QWidget*>(m_text), static_cast<QWidget*>(m_status),
                            static_cast<QWidget*>(m_language), static_cast<QWidget*>(m_client),
                            static_cast<QWidget*>(m_time), static_cast<QWidget*>(m_session)})
        filter->blockSignals(quiet);
}

void RunsPage::resetFilters()
{
    // Every filter at once, then one query.
    setFiltersQuiet(true);
    m_text->clear();
    for (QComboBox* combo : {m_status, m_language, m_client, m_time, m_session})
        combo->setCurrentIndex(0);
    setFiltersQuiet(false);
    m_filterDelay.stop();
    applyFilter();
}

void RunsPage::updateEmptyState()
{
    if (m_model->rowCount() > 0 || m_model->isScanning()) {
        m_tableOrNotice->setCurrentWidget(m_table);
        return;
    }
    m_empty->showReason(RunsFilterNote::narrows(m_model->filter())
                            ? RunsEmptyNotice::Reason::NoMatch
                            : RunsEmptyNotice::Reason::NoRuns);
    m_tableOrNotice->setCurrentWidget(m_empty);
}

void RunsPage::applyFilter()
{
    HistoryQuery filter;
    filter.text = m_text->text().trimmed();
    if (m_status->currentData().isValid())
        filter.statuses = {static_cast<RunStatus>(m_status->currentData().toInt())};
    if (m_language->currentData().isValid())
        filter.language = m_language->currentData().toString();
    if (m_client->currentData().isValid())
        filter.exactClientName = m_client->currentData().toString();
    // Fixed when chosen: "last hour" keeps the runs it showed until the filter changes.
    const auto range = static_cast<TimeRange>(m_time->currentData().toInt());
    filter.startedFrom = range == TimeRange::Custom ? m_customFrom : startOf(range);
    if (range == TimeRange::Custom)
        filter.startedBefore = m_customBefore;
    filter.sessionKey = m_session->currentData().toString();
    m_model->setFilter(filter);
    m_table->followModelOrder();
}

void RunsPage::refreshClients()
{
    const Expected<QStringList> read = m_store.queries().clients();
    if (!read)
        return; // logged by the store; the list stays as it was
    const QStringList& names = *read;
    if (names == m_clientNames)
        return;
    m_clientNames = names;
    // The chosen client stays chosen, even once its runs are gone (deleted or pruned).
    const QVariant chosen = m_client->currentData();
    QStringList items = names;
    if (chosen.isValid() && !items.contains(chosen.toString()))
        items.append(chosen.toString());
    const QSignalBlocker blocker(m_client);
    m_client->clear();
    m_client->addItem(tr("Any client"));
    for (const QString& name : std::as_const(items))
        m_client->addItem(name.isEmpty() ? tr("(no name)") : name, name);
    m_client->setCurrentIndex(chosen.isValid() ? std::max(0, m_client->findData(chosen)) : 0);
}

void RunsPage::refreshSessions()
{
    const Expected<QList<HistoryInterpreterSession>> read = m_store.queries().sessions();
    if (!read)
        return; // logged by the store; the list stays as it was
    const QList<HistoryInterpreterSession>& sessions = *read;
    if (sessions == m_sessions)
        return;
    m_sessions = sessions;
    // The chosen session stays chosen, even once its runs are gone.
    const QVariant chosen = m_session->currentData();
    const QString chosenText = m_session->currentText();
    const QSignalBlocker blocker(m_session);
    m_session->clear();
    m_session->addItem(tr("Any session"));
    for (const HistoryInterpreterSession& session : sessions) {
        const QString when =
            QLocale().toString(session.lastStartedAt.toLocalTime(), QLocale::ShortFormat);
        m_session->addItem(
            tr("%1 (%2, %3)")
                .arg(session.name,
                     session.clientName.isEmpty() ? tr("no client name") : session.clientName,
                     when),
            session.key);
        m_session->setItemData(
            m_session->count() - 1,
            tr("%1; container %2").arg(Plural::of(session.calls, "call", "calls"), session.key),
            Qt::ToolTipRole);
    }
    if (chosen.isValid() && m_session->findData(chosen) < 0)
        m_session->addItem(chosenText, chosen);
    m_session->setCurrentIndex(chosen.isValid() ? std::max(0, m_session->findData(chosen)) : 0);
}

void RunsPage::revealRun(qint64 id)
{
    int row = m_model->rowOfRun(id);
    if (row < 0) {
        resetFilters();
        // The newest runs are read first; an older one is read up to as the view would.
        // A read spread over turns of the event loop (isScanning) is not waited for.
        while ((row = m_model->rowOfRun(id)) < 0 && m_model->canFetchMore() &&
               !m_model->isScanning())
            m_model->fetchMore();
    }
    if (row < 0)
        return; // deleted meanwhile
    const int shown = m_table->viewRow(row);
    m_table->selectRow(shown);
    m_table->scrollTo(m_table->model()->index(shown, 0));
    m_table->setFocus(Qt::OtherFocusReason);
}

void RunsPage::focusFilter()
{
    m_text->setFocus(Qt::ShortcutFocusReason);
    m_text->selectAll();
}

void RunsPage::showSession(const QString& key)
{
    refreshSessions();
    int index = m_session->findData(key);
    if (index < 0) {
        // No cell recorded yet (the history is written as cells start): choose it anyway.
        m_session->addItem(key, key);
        index = m_session->count() - 1;
    }
    m_session->setCurrentIndex(index); // applies the filter
}

void RunsPage::showSelection(const RunsSelection& selection)
{
    {
        // Every filter at once, then one query: each change would otherwise apply its own.
        setFiltersQuiet(true);
        const auto loud = qScopeGuard([this] { setFiltersQuiet(false); });
        m_text->clear();
        m_language->setCurrentIndex(0);
        m_session->setCurrentIndex(0);
        m_status->setCurrentIndex(
            selection.status ? std::max(0, m_status->findData(int(*selection.status))) : 0);
        int clientIndex = 0;
        if (selection.client) {
            refreshClients();
            clientIndex = m_client->findData(*selection.client);
            if (clientIndex < 0) {
                m_client->addItem(selection.client->isEmpty() ? tr("(no name)") : *selection.client,
                                  *selection.client);
                clientIndex = m_client->count() - 1;
            }
        }
        m_client->setCurrentIndex(clientIndex);
        m_customFrom = selection.from;
        m_customBefore = selection.before;
        const QLocale locale;
        const QDateTime from = selection.from.toLocalTime();
        const QDateTime before = selection.before.toLocalTime();
        const QString label =
            from.date() == before.addMSecs(-1).date()
                ? QStringLiteral("%1, %2–%3")
                      .arg(locale.toString(from.date(), QStringLiteral("MMM d")),
                           locale.toString(from.time(), QStringLiteral("HH:mm")),
                           locale.toString(before.time(), QStringLiteral("HH:mm")))
                : QStringLiteral("%1 – %2").arg(
                      locale.toString(from, QStringLiteral("MMM d HH:mm")),
                      locale.toString(before, QStringLiteral("MMM d HH:mm")));
        int custom = m_time->findData(int(TimeRange::Custom));
        if (custom < 0) {
            m_time->addItem(label, int(TimeRange::Custom));
            custom = m_time->count() - 1;
        }
        m_time->setItemText(custom, label);
        m_time->setCurrentIndex(custom);
    }
    applyFilter();
}

void RunsPage::noteNewClients(int first, int last)
{
    for (int row = first; row <= last; ++row) {
        const auto run = m_model->run(row);
        if (!run)
            continue;
        if (!run->sessionKey.isEmpty() && std::none_of(m_sessions.cbegin(), m_sessions.cend(),
                                                       [&](const HistoryInterpreterSession& s) {
                                                           return s.key == run->sessionKey;
                                                       }))
            refreshSessions();
        if (!m_clientNames.contains(run->clientName)) {
            refreshClients();
            return;
        }
    }
}

void RunsPage::showSelectedRun()
{
    const qint64 id = m_table->currentRunId();
    std::optional<RunRecord> run;
    if (id > 0) {
        if (Expected<RunRecord> read = m_store.queries().get(id))
            run = *std::move(read);
    }
    m_detail->showRun(run);
    m_refresh.setInterval(m_detail->showsRunningRun() ? kLiveRefreshIntervalMs
                                                      : kRefreshIntervalMs);
}

void RunsPage::setServer(EmbeddedServer* server)
{
    m_stops->setServer(server);
}

QList<qint64> RunsPage::selectedRunIds() const
{
    return m_table->selectedRunIds();
}

void RunsPage::updateActions()
{
    const bool any = m_table->selectedCount() > 0;
    m_copyCode->setEnabled(any);
    m_copyOutput->setEnabled(any);
    m_export->setEnabled(any);
    m_exportSession->setEnabled(!sessionToExport().isEmpty());
    m_delete->setEnabled(any);
    // One run, and one that has ended: re-running a run still going would only duplicate it.
    const auto run = m_table->singleSelectedRun();
    m_rerun->setEnabled(run && RunStatusTraits::isFinal(run->status));
}

Expected<void>
RunsPage::forEachBatch(const QList<qint64>& ids,
                       const std::function<void(const QList<RunRecord>&)>& take) const
{
    for (qsizetype first = 0; first < ids.size(); first += kExportBatch) {
        HistoryQuery query;
        query.ids = ids.mid(first, kExportBatch);
        query.limit = 0;
        const Expected<QList<RunRecord>> batch = m_store.queries().list(query);
        if (!batch)
            return Unexpected(batch.error());
        take(*batch);
    }
    return {};
}

QList<RunRecord> RunsPage::loadRuns(const QList<qint64>& ids) const
{
    QList<RunRecord> runs;
    if (!forEachBatch(ids, [&runs](const QList<RunRecord>& batch) { runs += batch; }))
        return {};
    // The store returns each batch newest first; the selection's order is the table's.
    std::sort(runs.begin(), runs.end(),
              [](const RunRecord& a, const RunRecord& b) { return a.id > b.id; });
    return runs;
}

void RunsPage::copyCode()
{
    const int copied =
        copyOfSelected([](const RunRecord& run) { return run.code; }, QStringLiteral("\n\n"));
    if (copied > 0)
        setMessage(tr("Copied the code of %1.").arg(Plural::of(copied, "run", "runs")));
}

void RunsPage::copyOutput()
{
    const int copied = copyOfSelected(outputOf, QStringLiteral("\n"));
    if (copied > 0)
        setMessage(tr("Copied the output of %1.").arg(Plural::of(copied, "run", "runs")));
}

int RunsPage::copyOfSelected(const std::function<QString(const RunRecord&)>& part,
                             const QString& separator)
{
    const QList<RunRecord> runs = loadRuns(selectedRunIds());
    if (runs.isEmpty())
        return 0;
    QStringList parts;
    for (const RunRecord& run : runs)
        parts << part(run);
    QGuiApplication::clipboard()->setText(parts.join(separator));
    return int(runs.size());
}

void RunsPage::chooseExportFile()
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty())
        return;
    const QString json = tr("JSON (*.json)");
    const QString csv = tr("CSV (*.csv)");
    auto* dialog = new QFileDialog(this, tr("Export %1").arg(Plural::of(ids.size(), "run", "runs")),
                                   QDir::home().filePath(QStringLiteral("runs.json")),
                                   json + QStringLiteral(";;") + csv);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("json"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::filterSelected, dialog, [dialog, csv](const QString& filter) {
        dialog->setDefaultSuffix(filter == csv ? QStringLiteral("csv") : QStringLiteral("json"));
    });
    connect(dialog, &QFileDialog::fileSelected, this,
            [this, ids](const QString& path) { exportRuns(ids, path); });
    dialog->open();
}

bool RunsPage::exportRuns(const QList<qint64>& ids, const QString& path)
{
    const RunExporter::Format format = path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)
                                           ? RunExporter::Format::Csv
                                           : RunExporter::Format::Json;
    int written = 0;
    const Expected<void> exported = RunExporter::writeFile(
        path, format, [this, &ids, &written](RunExporter& exporter) -> Expected<void> {
            // Newest first like the table, a batch at a time.
            QList<qint64> sorted = ids;
            std::sort(sorted.begin(), sorted.end(), std::greater<>());
            return forEachBatch(sorted, [&exporter, &written](const QList<RunRecord>& batch) {
                for (const RunRecord& run : batch)
                    exporter.add(run);
                written += int(batch.size());
            });
        });
    if (!exported) {
        setMessage(tr("Export failed: %1").arg(exported.error()));
        return false;
    }
    setMessage(tr("Exported %1 to %2.")
                   .arg(Plural::of(written, "run", "runs"), QDir::toNativeSeparators(path)));
    return true;
}

QString RunsPage::sessionToExport() const
{
    if (const QString chosen = m_session->currentData().toString(); !chosen.isEmpty())
        return chosen;
    const auto run = m_table->singleSelectedRun();
    return run ? run->sessionKey : QString();
}

void RunsPage::chooseSessionExportFile()
{
    const QString key = sessionToExport();
    if (key.isEmpty())
        return;
    HistoryQuery query;
    query.sessionKey = key;
    query.limit = 1;
    query.includeContent = false;
    const QList<RunRecord> newest = m_store.queries().list(query).valueOr({});
    const QString name = newest.isEmpty() ? QStringLiteral("session") : newest.first().sessionName;
    const bool python = newest.isEmpty() || newest.first().language == QLatin1String("python");
    const QString notebook = tr("Jupyter notebook (*.ipynb)");
    const QString script = python ? tr("Python script (*.py)") : tr("JavaScript file (*.js)");
    const QString scriptSuffix = python ? QStringLiteral("py") : QStringLiteral("js");
    auto* dialog = new QFileDialog(this, tr("Export the session %1").arg(name),
                                   QDir::home().filePath(name + QStringLiteral(".ipynb")),
                                   notebook + QStringLiteral(";;") + script);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("ipynb"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::filterSelected, dialog,
            [dialog, script, scriptSuffix](const QString& filter) {
                dialog->setDefaultSuffix(filter == script ? scriptSuffix : QStringLiteral("ipynb"));
            });
    connect(dialog, &QFileDialog::fileSelected, this,
            [this, key](const QString& path) { exportSession(key, path); });
    dialog->setObjectName(QStringLiteral("sessionExportDialog"));
    dialog->open();
}

bool RunsPage::exportSession(const QString& key, const QString& path)
{
    HistoryQuery query;
    query.sessionKey = key;
    query.limit = 0;
    Expected<QList<RunRecord>> read = m_store.queries().list(query);
    if (!read) {
        setMessage(tr("Export failed: %1").arg(read.error()));
        return false;
    }
    QList<RunRecord> runs = *std::move(read);
    if (runs.isEmpty()) {
        setMessage(tr("Export failed: the history has no cells of this session."));
        return false;
    }
    std::reverse(runs.begin(), runs.end()); // cell order
    const bool notebook = path.endsWith(QLatin1String(".ipynb"), Qt::CaseInsensitive);
    const InterpreterSessionExporter::Session session{runs.constFirst().sessionName,
                                                      runs.constFirst().language};
    const Expected<void> written =
        notebook ? InterpreterSessionExporter::writeNotebook(path, runs, session)
                 : InterpreterSessionExporter::writeScript(path, runs, session);
    if (!written) {
        setMessage(tr("Export failed: %1").arg(written.error()));
        return false;
    }
    setMessage(tr("Exported the session %1 (%2) to %3.")
                   .arg(runs.constFirst().sessionName, Plural::of(runs.size(), "call", "calls"),
                        QDir::toNativeSeparators(path)));
    return true;
}

void RunsPage::confirmDelete()
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty() || m_deleteConfirmation)
        return;
    auto* box =
        new QMessageBox(QMessageBox::Question, tr("Delete runs"),
                        tr("Delete %1 from the history? Their code and output are gone for good.")
                            .arg(Plural::of(ids.size(), "run", "runs")),
                        QMessageBox::NoButton, this);
    QPushButton* remove = box->addButton(tr("Delete"), QMessageBox::DestructiveRole);
    box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [this, box, remove, ids] {
        if (box->clickedButton() == remove)
            deleteRuns(ids);
    });
    box->setObjectName(QStringLiteral("deleteConfirmation"));
    m_deleteConfirmation = box;
    box->open();
}

bool RunsPage::deleteRuns(const QList<qint64>& ids)
{
    if (const Expected<void> deleted = m_model->deleteRuns(ids); !deleted) {
        setMessage(tr("Delete failed: %1").arg(deleted.error()));
        return false;
    }
    setMessage(tr("Deleted %1.").arg(Plural::of(ids.size(), "run", "runs")));
    return true;
}

void RunsPage::requestRerun()
{
    const QList<qint64> ids = selectedRunIds();
    if (ids.size() != 1)
        return;
    const auto run = m_store.queries().get(ids.constFirst());
    if (!run || !RunStatusTraits::isFinal(run->status))
        return;
    Q_EMIT rerunRequested(*run);
}

} // namespace csm
