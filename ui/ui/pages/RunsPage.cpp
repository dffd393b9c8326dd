#include "ui/pages/RunsPage.h"

#include "history/HistoryStore.h"
#include "history/InterpreterSessionExporter.h"
#include "history/RunExporter.h"
#include "ui/models/RunsModel.h"
#include "ui/pages/RunDetailPane.h"
#include "ui/pages/RunStops.h"
#include "ui/Plural.h"
#include "ui/widgets/RunsEmptyNotice.h"
#include "ui/widgets/RunsFilterBar.h"
#include "ui/widgets/RunsFilterNote.h"
#include "ui/widgets/RunsTable.h"

#include <QAction>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollBar>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace csm {

namespace {
// Runs loaded in full per query for an export: a few hundred, however large the selection.
constexpr int kExportBatch = 200;

QString outputOf(const RunRecord& run)
{
    if (run.stderrText.isEmpty())
        return run.stdoutText;
    if (run.stdoutText.isEmpty() || run.stdoutText.endsWith(u'\n'))
        return run.stdoutText + run.stderrText;
    return run.stdoutText + u'\n' + run.stderrText;
}

} // namespace

RunsPage::RunsPage(HistoryStore& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_model(new RunsModel(store, this))
    , m_filters(new RunsFilterBar(store, this))
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
    layout->addWidget(m_filters);
    layout->addWidget(m_filterNote);
    layout->addLayout(actionsRow);
    layout->addWidget(m_split, 1);

    connect(m_filters, &RunsFilterBar::changed, this, &RunsPage::applyFilter);
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
                noteNewRuns(first, last);
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
    connect(m_filterNote, &RunsFilterNote::resetRequested, m_filters, &RunsFilterBar::reset);
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
    updateActions();
    updateEmptyState();
    // Stable names: tests find the widgets by them (findChild).
    m_model->setObjectName(QStringLiteral("model"));
    m_table->setObjectName(QStringLiteral("table"));
    m_detail->setObjectName(QStringLiteral("detail"));
    m_split->setObjectName(QStringLiteral("listAndDetail"));
    m_empty->setObjectName(QStringLiteral("emptyNotice"));
    m_filters->setObjectName(QStringLiteral("filters"));
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
    m_model->setFilter(m_filters->query());
    m_table->followModelOrder();
}

void RunsPage::revealRun(qint64 id)
{
    int row = m_model->rowOfRun(id);
    if (row < 0) {
        m_filters->reset();
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
    m_filters->focusText();
}

void RunsPage::showSession(const QString& key)
{
    m_filters->showSession(key);
}

void RunsPage::showSelection(const RunsSelection& selection)
{
    m_filters->showSelection(selection);
}

void RunsPage::noteNewRuns(int first, int last)
{
    QList<RunRecord> runs;
    for (int row = first; row <= last; ++row) {
        if (auto run = m_model->run(row))
            runs.append(*std::move(run));
    }
    m_filters->noteRuns(runs);
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
    if (const QString chosen = m_filters->chosenSession(); !chosen.isEmpty())
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
