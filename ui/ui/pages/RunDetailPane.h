#pragma once

#include "history/RunRecord.h"

#include <QTimer>
#include <QWidget>

#include <optional>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;

namespace csm {

class CodeView;
class RunFilesView;
class RunNetworkView;

// One run in full: what ran (code), what it printed (stdout, stderr), the files that went in and
// came out, how it ended and the limits it ran under. A run still going shows how long it has
// run, what it printed so far (its server writes that to the history a few times a second) and
// a Stop button.
class RunDetailPane final : public QWidget
{
    Q_OBJECT

public:
    // How often the elapsed time of a running run is redrawn.
    static constexpr int kElapsedTickMs = 100;
    // How long a Stop may take before the pane says the run's server has not answered (a server
    // looks for stop requests five times a second).
    static constexpr int kStopAnswerMs = 5000;

    explicit RunDetailPane(QWidget* parent = nullptr);

    // Shows `run`; nothing shows an empty pane. The same run again (as it prints, and when it
    // ends) keeps each output's scrolling: at the end, it follows what comes.
    void showRun(const std::optional<RunRecord>& run);
    qint64 shownRunId() const { return m_run ? m_run->id : 0; }
    // Whether the run shown is still running (as last read).
    bool showsRunningRun() const;
    // The Stop asked for could not be passed on (the history refused it): Stop can be pressed
    // again.
    void stopFailed();

Q_SIGNALS:
    // The person asked to stop running run `id`, as its client could cancel it.
    void stopRequested(qint64 id);

private:
    void updateSummary();
    // "Jump to end": shown while a running run's output is scrolled up from its end.
    void updateJumpToEnd();
    // Stderr for a failure that printed one, the chart when one came back, the live tail while
    // running; else what there is.
    QWidget* mostUsefulTab(const RunRecord& run) const;
    void setStopping();

    QLabel* m_result = nullptr; // what became of the run, in plain words (RunResultLine)
    QLabel* m_summary = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_jumpToEnd = nullptr;
    QTabWidget* m_tabs = nullptr;
    CodeView* m_code = nullptr;
    QPlainTextEdit* m_stdout = nullptr;
    QPlainTextEdit* m_stderr = nullptr;
    QPlainTextEdit* m_limits = nullptr;
    RunFilesView* m_files = nullptr;
    RunNetworkView* m_network = nullptr;
    std::optional<RunRecord> m_run;
    bool m_stopAsked = false;      // Stop was pressed for the run shown
    bool m_stopUnanswered = false; // ... and the run went on past kStopAnswerMs
    QTimer m_stopWait;
    QTimer m_elapsedTick;
};

} // namespace csm
