#pragma once

#include "server/ServerStatus.h"

#include <QIcon>
#include <QList>
#include <QSystemTrayIcon>

#include <functional>

class QAction;
class QMenu;

namespace csm {

// The app in the system tray: whether its server runs, how many calls run now (drawn on the
// icon) and how many wait for approval; a menu that says what runs, switches asking before
// each call, lists the last failures (each opens its run) and shows the window or quits; and
// the desktop notifications the app gives (DesktopNotifier).
class TrayIcon final : public QSystemTrayIcon
{
    Q_OBJECT

public:
    // A run the menu lists: its id and what to call it.
    struct RunItem
    {
        qint64 id = 0;
        QString text;
    };

    explicit TrayIcon(QObject* parent = nullptr);
    ~TrayIcon() override;

    // Where the menu's last failures come from, read each time the menu opens.
    void setRecentFailures(std::function<QList<RunItem>()> source);
    void setApprovalRequired(bool required);
    // The menu, as the desktop shows it (for tests; refreshed as it would be when opened).
    QMenu* menu();

    void showStatus(const ServerStatus& status, bool servingStdio);
    // The app's icon (the one installed for menus), grey while stopped, with a badge for
    // `runningCalls` (none at 0); also the window icon.
    static QIcon icon(int runningCalls, bool running);

    // Shows a desktop notification from the tray icon, where the desktop has a tray that shows
    // them (nothing shows where it has none, or while the icon is hidden); notified() tells
    // either way. Clicking the notification asks to show the window.
    void notify(const QString& title, const QString& text);
    // Whether notify() reaches the desktop now.
    bool canShowMessages() const;

Q_SIGNALS:
    void showWindowRequested();
    void quitRequested();
    void runRequested(qint64 id);
    void approvalRequiredChanged(bool required);
    // notify() was called with these words, whether the desktop could show them or not.
    void notified(const QString& title, const QString& text);

private:
    void refreshFailures();

    std::unique_ptr<QMenu> m_menu;
    QAction* m_running = nullptr;
    QAction* m_approval = nullptr;
    QMenu* m_failures = nullptr;
    std::function<QList<RunItem>()> m_failureSource;
    int m_shownCount = -1;
    bool m_shownRunning = false;
};

} // namespace csm
