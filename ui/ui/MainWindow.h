#pragma once

#include "ui/widgets/TrayIcon.h"

#include <QMainWindow>

#include <memory>

class QMessageBox;
class QTabWidget;

namespace csm {

class ActivityPage;
class ApprovalPrompter;
class EgressPrompter;
class DesktopNotifier;
class EmbeddedServer;
class HealthBanner;
class HistoryStore;
class ImageOperations;
class ImagesPage;
class RunsPage;
class SecretsPage;
class ServerPage;
struct RunRecord;
class SettingsPage;

// The desktop app's window: one page per task (Runs first). The run history is the one every
// Code Sandbox process of the user writes, so runs of headless servers show here too.
class MainWindow final : public QMainWindow
{
    Q_OBJECT

public:
    // `dataDir`: the folder of the run history (HistoryLocation::dataDir()). `server`: the app's
    // own MCP server (started by the caller), or null for a window that only watches.
    explicit MainWindow(const QString& dataDir, EmbeddedServer* server = nullptr,
                        QWidget* parent = nullptr);
    ~MainWindow() override;

    // How many failed runs the tray menu lists.
    static constexpr int kTrayFailures = 5;

    // Stops the server (its calls and containers), then quits the application.
    void shutDownAndQuit();
    // Quit, as the tray menu asks: first asks whether to end an assistant's live session.
    void quit();
    // Whether closing the window leaves the app running in the tray: a tray is shown and the
    // server serves.
    bool keepsRunningInTray() const;

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    // Ctrl+1... for the pages, Ctrl+F for the runs' filter.
    void addKeyboardShortcuts();
    // The window's size and place and the runs list's layout, as the person left them
    // (desktop-layout.ini in the data folder).
    QString layoutFile() const;
    void restoreLayout();
    void saveLayout() const;

    std::unique_ptr<HistoryStore> m_history;
    QTabWidget* m_pages = nullptr;
    RunsPage* m_runs = nullptr;
    ActivityPage* m_activity = nullptr;
    SecretsPage* m_secrets = nullptr;
    ImagesPage* m_images = nullptr;
    ImageOperations* m_imageOperations = nullptr;
    SettingsPage* m_settings = nullptr;
    HealthBanner* m_banner = nullptr;
    QString m_dataDir;
    EmbeddedServer* m_server = nullptr;
    ServerPage* m_serverPage = nullptr;
    ApprovalPrompter* m_approvals = nullptr;
    EgressPrompter* m_egressQuestions = nullptr;
    TrayIcon* m_tray = nullptr;
    DesktopNotifier* m_notifier = nullptr;
    QMessageBox* m_closeConfirmation = nullptr;
    bool m_quitting = false;

    void applyDesktopSettings();
    void offerSetupOnceChecked();
    bool hasLiveSession() const;
    void rerun(const RunRecord& run);
    QList<TrayIcon::RunItem> recentFailures() const;
};

} // namespace csm
