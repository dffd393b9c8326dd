#pragma once

#include "server/ServerStatus.h"

#include <QIcon>
#include <QSystemTrayIcon>

class QAction;
class QMenu;

namespace csm {

// The app in the system tray: whether its server runs, how many calls run now (drawn on the
// icon) and how many wait for approval; a menu to show the window or quit; and the desktop
// notifications the app gives (DesktopNotifier).
class TrayIcon final : public QSystemTrayIcon
{
    Q_OBJECT

public:
    explicit TrayIcon(QObject* parent = nullptr);
    ~TrayIcon() override;

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
    // notify() was called with these words, whether the desktop could show them or not.
    void notified(const QString& title, const QString& text);

private:
    std::unique_ptr<QMenu> m_menu;
    int m_shownCount = -1;
    bool m_shownRunning = false;
};

} // namespace csm
