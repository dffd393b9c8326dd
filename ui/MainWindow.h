#pragma once

#include <QMainWindow>

#include <memory>

class QTabWidget;

namespace csm {

class HistoryStore;
class RunsPage;

// The desktop app's window: one page per task (Runs first). The run history is the one every
// Code Sandbox process of the user writes, so runs of headless servers show here too.
class MainWindow final : public QMainWindow
{
    Q_OBJECT

public:
    // `dataDir`: the folder of the run history (HistoryLocation::dataDir()).
    explicit MainWindow(const QString& dataDir, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Null when the history could not be opened (the window says why).
    RunsPage* runsPage() const { return m_runs; }

private:
    std::unique_ptr<HistoryStore> m_history;
    QTabWidget* m_pages = nullptr;
    RunsPage* m_runs = nullptr;
};

} // namespace csm
