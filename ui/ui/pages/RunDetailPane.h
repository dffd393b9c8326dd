#pragma once

#include "history/RunRecord.h"

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QTabWidget;

namespace csm {

class CodeView;
class RunFilesView;

// One run in full: what ran (code), what it printed (stdout, stderr), the files that went in and
// came out, how it ended and the limits it ran under. Read-only.
class RunDetailPane final : public QWidget
{
    Q_OBJECT

public:
    explicit RunDetailPane(QWidget* parent = nullptr);

    // Shows `run`; nothing shows an empty pane.
    void showRun(const std::optional<RunRecord>& run);
    qint64 shownRunId() const { return m_runId; }

private:
    QLabel* m_summary = nullptr;
    QTabWidget* m_tabs = nullptr;
    CodeView* m_code = nullptr;
    QPlainTextEdit* m_stdout = nullptr;
    QPlainTextEdit* m_stderr = nullptr;
    QPlainTextEdit* m_limits = nullptr;
    RunFilesView* m_files = nullptr;
    qint64 m_runId = 0;
};

} // namespace csm
