#include "ui/MainWindow.h"

#include "history/HistoryLocation.h"
#include "history/HistoryStore.h"
#include "server/EmbeddedServer.h"
#include "ui/ApprovalPrompter.h"
#include "ui/DesktopNotifier.h"
#include "ui/dialogs/SetupDialog.h"
#include "ui/EgressPrompter.h"
#include "ui/ImageOperations.h"
#include "ui/models/RunStatusLook.h"
#include "ui/models/RunSummary.h"
#include "ui/pages/ActivityPage.h"
#include "ui/pages/ImagesPage.h"
#include "ui/pages/RunsPage.h"
#include "ui/pages/SecretsPage.h"
#include "ui/pages/ServerPage.h"
#include "ui/pages/SettingsPage.h"
#include "ui/Plural.h"
#include "ui/settings/DesktopSettings.h"
#include "ui/widgets/HealthBanner.h"
#include "ui/widgets/TrayIcon.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPointer>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace csm {

MainWindow::MainWindow(const QString& dataDir, EmbeddedServer* server, QWidget* parent)
    : QMainWindow(parent)
    , m_pages(new QTabWidget(this))
    , m_dataDir(dataDir)
    , m_server(server)
{
    setWindowTitle(tr("Code Sandbox"));
    // Stable names: tests find the pages and dialogs by them (findChild).
    m_pages->setObjectName(QStringLiteral("pages"));
    Expected<std::unique_ptr<HistoryStore>> history =
        HistoryStore::open(HistoryLocation::historyPath(dataDir));
    if (history) {
        m_history = *std::move(history);
        m_runs = new RunsPage(*m_history, m_pages);
        m_runs->setObjectName(QStringLiteral("runsPage"));
        m_pages->addTab(m_runs, tr("Runs"));
        m_activity = new ActivityPage(*m_history, m_pages);
        m_activity->setObjectName(QStringLiteral("activityPage"));
        m_pages->addTab(m_activity, tr("Activity"));
        connect(m_activity, &ActivityPage::runsRequested, this,
                [this](const RunsSelection& selection) {
                    m_runs->showSelection(selection);
                    m_pages->setCurrentWidget(m_runs);
                });
    } else {
        auto* problem = new QLabel(tr("The run history in %1 cannot be opened: %2")
                                       .arg(QDir::toNativeSeparators(dataDir), history.error()),
                                   m_pages);
        problem->setWordWrap(true);
        problem->setAlignment(Qt::AlignCenter);
        m_pages->addTab(problem, tr("Runs"));
    }
    m_secrets = new SecretsPage(dataDir, m_pages);
    m_secrets->setObjectName(QStringLiteral("secretsPage"));
    m_pages->addTab(m_secrets, tr("Secrets"));
    // The Images page's commands, which the first-run setup uses too.
    m_imageOperations = new ImageOperations(this);
    m_imageOperations->setObjectName(QStringLiteral("imageOperations"));
    m_images = new ImagesPage(dataDir, *m_imageOperations, m_pages);
    m_images->setObjectName(QStringLiteral("imagesPage"));
    m_pages->addTab(m_images, tr("Images"));
    // The banner above every page: whatever the page, a missing engine or image shows.
    m_banner = new HealthBanner(dataDir, this);
    m_banner->setObjectName(QStringLiteral("healthBanner"));
    connect(m_banner, &HealthBanner::buildRequested, m_images, [this](Language language) {
        m_pages->setCurrentWidget(m_images);
        m_imageOperations->buildDefaultImage(language);
    });
    connect(m_banner, &HealthBanner::pullRequested, m_images, [this](const QString& image) {
        m_pages->setCurrentWidget(m_images);
        m_imageOperations->pull(image);
    });
    connect(m_images, &ImagesPage::imagesChanged, m_banner, &HealthBanner::recheck);
    m_serverPage = new ServerPage(dataDir, server, m_pages);
    m_serverPage->setObjectName(QStringLiteral("serverPage"));
    m_pages->addTab(m_serverPage, tr("Server"));
    if (m_runs) {
        connect(m_serverPage, &ServerPage::showSessionCellsRequested, this,
                [this](const QString& key) {
                    m_runs->showSession(key);
                    m_pages->setCurrentWidget(m_runs);
                });
        connect(m_runs, &RunsPage::connectAssistantRequested, this, [this] {
            m_pages->setCurrentWidget(m_serverPage);
            m_serverPage->showClientConfiguration();
        });
    }
    setWindowIcon(TrayIcon::icon(0, true));
    if (m_server) {
        m_approvals = new ApprovalPrompter(*m_server, this);
        m_approvals->setObjectName(QStringLiteral("approvals"));
        m_egressQuestions = new EgressPrompter(*m_server, m_dataDir, this);
        m_egressQuestions->setObjectName(QStringLiteral("egressQuestions"));
        // Made even where the desktop has no tray: it is then never shown, and what it would
        // have notified goes nowhere (but its notified() signal still tells tests).
        m_tray = new TrayIcon(this);
        m_tray->setObjectName(QStringLiteral("tray"));
        connect(m_tray, &TrayIcon::showWindowRequested, this, [this] {
            showNormal();
            raise();
            activateWindow();
        });
        connect(m_tray, &TrayIcon::quitRequested, this, &MainWindow::quit);
        connect(m_tray, &TrayIcon::runRequested, this, [this](qint64 id) {
            showNormal();
            raise();
            activateWindow();
            if (!m_runs)
                return; // no history, no runs page
            m_pages->setCurrentWidget(m_runs);
            m_runs->revealRun(id);
        });
        connect(m_tray, &TrayIcon::approvalRequiredChanged, this, [this](bool required) {
            DesktopSettings settings = DesktopSettings::load(m_dataDir);
            settings.approvalRequired = required;
            // The Settings page follows the file; a failed save keeps the old mode.
            if (settings.save(m_dataDir))
                applyDesktopSettings();
            else
                m_tray->setApprovalRequired(!required);
        });
        m_tray->setRecentFailures([this] { return recentFailures(); });
        if (QSystemTrayIcon::isSystemTrayAvailable())
            m_tray->show();
        m_notifier = new DesktopNotifier(*m_tray, m_history.get(), this);
        m_notifier->setObjectName(QStringLiteral("notifier"));
        connect(m_server, &EmbeddedServer::approvalRequested, m_notifier,
                &DesktopNotifier::approvalRequested);
        connect(m_server, &EmbeddedServer::statusChanged, this, [this](const ServerStatus& status) {
            m_tray->showStatus(status, m_server->isServingStdio());
            // Ending with the application's name, which the platform would otherwise add again.
            setWindowTitle(status.runningCalls > 0
                               ? tr("%1 running — Code Sandbox")
                                     .arg(Plural::of(status.runningCalls, "call", "calls"))
                               : tr("Code Sandbox"));
        });
        connect(m_server, &EmbeddedServer::stopped, this, [this] {
            if (m_quitting)
                QCoreApplication::quit();
        });
        applyDesktopSettings();
        if (!DesktopSettings::load(dataDir).setupDone)
            offerSetupOnceChecked();
        if (m_runs) {
            connect(m_runs, &RunsPage::rerunRequested, this, &MainWindow::rerun);
            m_runs->setServer(m_server);
        }
    }
    // Last: the page people visit least.
    m_settings = new SettingsPage(dataDir, m_pages);
    m_settings->setObjectName(QStringLiteral("settingsPage"));
    m_pages->addTab(m_settings, tr("Settings"));
    connect(m_settings, &SettingsPage::applied, this, [this] {
        if (m_server)
            applyDesktopSettings();
    });
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->addWidget(m_banner);
    centralLayout->addWidget(m_pages, 1);
    setCentralWidget(central);
    addKeyboardShortcuts();
    resize(1280, 800);
    restoreLayout();
}

QString MainWindow::layoutFile() const
{
    return QDir(m_dataDir).filePath(QStringLiteral("desktop-layout.ini"));
}

void MainWindow::restoreLayout()
{
    if (m_dataDir.isEmpty())
        return;
    const QSettings layout(layoutFile(), QSettings::IniFormat);
    restoreGeometry(layout.value(QStringLiteral("window/geometry")).toByteArray());
    if (m_runs)
        m_runs->restoreLayout(layout);
}

void MainWindow::saveLayout() const
{
    if (m_dataDir.isEmpty())
        return;
    // How the window was arranged, not a setting: its own file, beside settings.ini.
    QSettings layout(layoutFile(), QSettings::IniFormat);
    layout.setValue(QStringLiteral("window/geometry"), saveGeometry());
    if (m_runs)
        m_runs->saveLayout(layout);
}

void MainWindow::addKeyboardShortcuts()
{
    // Ctrl+1, Ctrl+2...: the pages in their order, as in a browser's tabs.
    for (int page = 0; page < std::min(m_pages->count(), 9); ++page) {
        auto* shortcut =
            new QShortcut(QKeySequence(Qt::ControlModifier | Qt::Key(Qt::Key_1 + page)), this,
                          [this, page] { m_pages->setCurrentIndex(page); });
        shortcut->setObjectName(QStringLiteral("pageShortcut%1").arg(page + 1));
    }
    // Ctrl+F: the runs' text filter, from any page.
    if (m_runs) {
        auto* find = new QShortcut(QKeySequence::Find, this, [this] {
            m_pages->setCurrentWidget(m_runs);
            m_runs->focusFilter();
        });
        find->setObjectName(QStringLiteral("findShortcut"));
    }
}

void MainWindow::applyDesktopSettings()
{
    const DesktopSettings settings = DesktopSettings::load(m_dataDir);
    m_server->setApproval(settings.approvalRequired, settings.approvalTimeoutSeconds * 1000);
    m_tray->setApprovalRequired(settings.approvalRequired);
    m_notifier->setNotifyApprovals(settings.notifyApprovals);
    m_notifier->setNotifyFailures(settings.notifyFailures);
}

void MainWindow::offerSetupOnceChecked()
{
    connect(
        m_banner, &HealthBanner::checked, this,
        [this] {
            if (m_banner->problems().isEmpty()) {
                // Nothing to set up: the first run is over before it was noticed.
                DesktopSettings settings = DesktopSettings::load(m_dataDir);
                settings.setupDone = true;
                // At worst the setup is offered once more at the next start.
                static_cast<void>(settings.save(m_dataDir));
                return;
            }
            auto* setup = new SetupDialog(m_dataDir, *m_banner, *m_imageOperations, this);
            setup->setAttribute(Qt::WA_DeleteOnClose);
            setup->setObjectName(QStringLiteral("setupDialog"));
            setup->open();
        },
        Qt::SingleShotConnection);
}

bool MainWindow::hasLiveSession() const
{
    if (!m_server || m_server->isStopped())
        return false;
    const ServerStatus& status = m_server->status();
    return status.runningCalls > 0 || (m_server->isServingStdio() && !status.sessions.isEmpty());
}

QList<TrayIcon::RunItem> MainWindow::recentFailures() const
{
    if (!m_history)
        return {}; // the history could not be opened: the window says so
    HistoryQuery failed;
    failed.statuses = {RunStatus::Error, RunStatus::Oom, RunStatus::Timeout,
                       RunStatus::EngineError};
    failed.limit = kTrayFailures;
    failed.includeContent = false;
    failed.previewChars = RunSummary::kReadChars;
    failed.stderrTailChars = RunSummary::kReadChars;
    QList<TrayIcon::RunItem> items;
    for (const RunRecord& run : m_history->queries().list(failed).valueOr({})) {
        items.append({run.id, tr("#%1 %2: %3")
                                  .arg(run.id)
                                  .arg(RunStatusLook::label(run.status), RunSummary::of(run))});
    }
    return items;
}

bool MainWindow::keepsRunningInTray() const
{
    return m_tray && m_tray->isVisible() && m_server && !m_server->isStopped() && !m_quitting;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (keepsRunningInTray()) {
        // The assistants keep their server: the window only goes out of sight.
        event->ignore();
        hide();
        DesktopSettings settings = DesktopSettings::load(m_dataDir);
        if (!settings.trayNoticeShown) {
            m_tray->notify(tr("Code Sandbox is still running"),
                           tr("It keeps serving your assistants from the tray. To stop it, "
                              "choose Quit in the tray icon's menu."));
            settings.trayNoticeShown = true;
            static_cast<void>(settings.save(m_dataDir)); // at worst, told once more
        }
        return;
    }
    if (!m_server || m_server->isStopped()) {
        event->accept();
        return;
    }
    // The server must stop first (its containers removed); the app quits when it has.
    event->ignore();
    quit();
}

void MainWindow::quit()
{
    if (!m_server || m_server->isStopped()) {
        shutDownAndQuit();
        return;
    }
    if (m_quitting || m_closeConfirmation)
        return;
    if (!hasLiveSession()) {
        shutDownAndQuit();
        return;
    }
    m_closeConfirmation = new QMessageBox(
        QMessageBox::Question, tr("End the session?"),
        tr("An assistant is connected to Code Sandbox through this window. Closing it ends the "
           "session and stops every running call."),
        QMessageBox::NoButton, this);
    m_closeConfirmation->addButton(tr("End the session and quit"), QMessageBox::AcceptRole);
    m_closeConfirmation->setDefaultButton(m_closeConfirmation->addButton(QMessageBox::Cancel));
    m_closeConfirmation->setAttribute(Qt::WA_DeleteOnClose);
    // Asked from the tray, the window may be out of sight: the question comes with it.
    showNormal();
    raise();
    m_closeConfirmation->setObjectName(QStringLiteral("closeConfirmation"));
    connect(m_closeConfirmation, &QMessageBox::finished, this, [this] {
        const bool quit = m_closeConfirmation->buttonRole(m_closeConfirmation->clickedButton()) ==
                          QMessageBox::AcceptRole;
        m_closeConfirmation = nullptr;
        if (quit)
            shutDownAndQuit();
    });
    m_closeConfirmation->open();
}

void MainWindow::shutDownAndQuit()
{
    if (m_quitting)
        return;
    m_quitting = true;
    hide();
    if (m_tray)
        m_tray->hide();
    if (!m_server || m_server->isStopped()) {
        QCoreApplication::quit();
        return;
    }
    m_server->shutdown();
}

void MainWindow::rerun(const RunRecord& run)
{
    if (!m_server)
        return;
    // The new run shows in the Runs page like any other, marked as the app's own; only a run
    // that could not even start needs saying here.
    // The server may outlive this window.
    m_server->runFromApp(run.tool, run.code, [window = QPointer(this)](const QJsonObject& result) {
        if (window && !result.contains(QLatin1String("structuredContent")))
            window->statusBar()->showMessage(MainWindow::tr("Re-run failed: %1")
                                                 .arg(result.value(QLatin1String("content"))
                                                          .toArray()
                                                          .at(0)
                                                          .toObject()
                                                          .value(QLatin1String("text"))
                                                          .toString()),
                                             10'000);
    });
}

MainWindow::~MainWindow()
{
    saveLayout();
    // The pages read the history: they go before it.
    delete m_pages;
}

} // namespace csm
