#pragma once

#include "core/Expected.h"
#include "history/RunRecord.h"
#include "ui/models/RunsSelection.h"

#include <QHash>
#include <QList>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include <functional>

class QAction;
class QLabel;
class QMessageBox;
class QSettings;
class QSplitter;
class QStackedWidget;
class QTableView;
class QToolBar;

namespace csm {

class EmbeddedServer;
class HistoryStore;
class RunDetailPane;
class RunStops;
class RunsEmptyNotice;
class RunsFilterBar;
class RunsFilterNote;
class RunsModel;
class RunsTable;

// The main page: every run of every Code Sandbox process of this user, live, newest first,
// filtered by text, status, language, client, time range and session, with the selected run in
// full below, and actions on the selected runs: copy code or output, export (JSON, CSV), delete,
// re-run; and a session's cells exported as a notebook or a script.
class RunsPage final : public QWidget
{
    Q_OBJECT

public:
    // How often the history is asked what changed: a run shows within this long of its start.
    static constexpr int kRefreshIntervalMs = 500;
    // The same while the run in the detail pane is running: its output shows as it comes.
    static constexpr int kLiveRefreshIntervalMs = 100;
    // From this width on, the selected run shows beside the list instead of below it.
    static constexpr int kSideBySideWidth = 1500;

    explicit RunsPage(HistoryStore& store, QWidget* parent = nullptr);
    // This app's own server: Stop asks it first, directly; a run it does not run (a headless
    // server's, another process's) is stopped through the history.
    void setServer(EmbeddedServer* server);

    // The selected runs' ids, in table order (newest first).
    QList<qint64> selectedRunIds() const;
    // Writes runs `ids` in full to `path`: CSV when it ends in ".csv", else JSON. The export
    // button calls it with the selection once its file dialog has a path. False, with the
    // reason in the message line, when the history cannot be read or the file cannot be written.
    bool exportRuns(const QList<qint64>& ids, const QString& path);
    // Deletes runs `ids` from the history, without asking (the delete button asks first).
    bool deleteRuns(const QList<qint64>& ids);
    // Shows only the cells of the session `key` (RunRecord::sessionKey), whatever the other
    // filters said.
    void showSession(const QString& key);
    // Puts the keyboard in the text filter, its text selected (Ctrl+F).
    void focusFilter();
    // Selects run `id` and shows it, clearing the filters when they hide it.
    void revealRun(qint64 id);
    // The list's columns, sorting and the list's share of the page (below and beside), kept
    // for the next start.
    void saveLayout(QSettings& settings) const;
    void restoreLayout(const QSettings& settings);
    // Shows only the runs of `selection` (a bar of the Activity page): its time, and its client
    // or status; the other filters are cleared.
    void showSelection(const RunsSelection& selection);
    // Writes the session `key`'s cells, in order, to `path`: a Jupyter notebook when it ends in
    // ".ipynb", else a script. False, with the reason in the message line, on failure.
    bool exportSession(const QString& key, const QString& path);

protected:
    // Wide: the detail beside the list; narrow: below it.
    void resizeEvent(QResizeEvent* event) override;

Q_SIGNALS:
    // The user asked to run `run` (loaded in full) again, as a new run.
    void rerunRequested(const csm::RunRecord& run);
    // The user asked how to connect an assistant (the empty history's button).
    void connectAssistantRequested();

private:
    static QString splitKey(Qt::Orientation orientation);
    void applyFilter();
    // The table, or in its place what an empty one means: no runs yet, or none that match.
    void updateEmptyState();
    // "N of M runs", and a running call the filters hide.
    void updateFilterNote();
    void showSelectedRun();
    // Through the history, whichever process serves the run: its server looks for requests a few
    // times a second (RunHistoryRecorder).
    void updateActions();
    void copyCode();
    void copyOutput();
    // Puts `part` of each selected run on the clipboard, joined by `separator`; how many.
    int copyOfSelected(const std::function<QString(const RunRecord&)>& part,
                       const QString& separator);
    void chooseExportFile();
    void chooseSessionExportFile();
    // The session an export of a session would write: the session filter's, else the selected
    // run's; empty when neither names one.
    QString sessionToExport() const;
    void confirmDelete();
    void requestRerun();
    // New rows: their clients and sessions join the filters' lists.
    void noteNewRuns(int first, int last);
    void setMessage(const QString& text);
    // Reads the runs `ids` a batch at a time (in the store's order within a batch), handing
    // each batch to `take`.
    Expected<void> forEachBatch(const QList<qint64>& ids,
                                const std::function<void(const QList<RunRecord>&)>& take) const;
    QList<RunRecord> loadRuns(const QList<qint64>& ids) const;

    HistoryStore& m_store;
    RunsModel* m_model = nullptr;
    RunsFilterBar* m_filters = nullptr;
    QToolBar* m_actions = nullptr;
    QAction* m_copyCode = nullptr;
    QAction* m_copyOutput = nullptr;
    QAction* m_export = nullptr;
    QAction* m_exportSession = nullptr;
    QAction* m_delete = nullptr;
    QAction* m_rerun = nullptr;
    QLabel* m_message = nullptr;
    RunsFilterNote* m_filterNote = nullptr;
    RunsTable* m_table = nullptr;
    RunsEmptyNotice* m_empty = nullptr;
    QStackedWidget* m_tableOrNotice = nullptr;
    RunDetailPane* m_detail = nullptr;
    QSplitter* m_split = nullptr;
    QHash<Qt::Orientation, QList<int>> m_splitSizes;
    RunStops* m_stops = nullptr;
    QPointer<QMessageBox> m_deleteConfirmation;
    QTimer m_refresh;
    QTimer m_filterNoteDue;
};

} // namespace csm
