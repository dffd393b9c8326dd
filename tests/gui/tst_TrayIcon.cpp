// The tray icon's face: the running count drawn on the icon, the status in its tooltip, and its
// notifications where there is no tray.
#include "ui/widgets/TrayIcon.h"

#include <QApplication>
#include <QSignalSpy>
#include <QTest>

using csm::ServerStatus;
using csm::TrayIcon;

class tst_TrayIcon final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void theCountIsDrawnOnTheIcon()
    {
        const QImage idle = TrayIcon::icon(0, true).pixmap(32).toImage();
        const QImage busy = TrayIcon::icon(3, true).pixmap(32).toImage();
        const QImage busier = TrayIcon::icon(4, true).pixmap(32).toImage();
        const QImage stopped = TrayIcon::icon(0, false).pixmap(32).toImage();
        QVERIFY(!idle.isNull());
        QVERIFY(idle != busy);
        QVERIFY(busy != busier);
        QVERIFY(idle != stopped);
        // The badge sits in the top right corner: red there only when calls run.
        const QColor idleCorner = idle.pixelColor(26, 6);
        const QColor busyCorner = busy.pixelColor(26, 6);
        QVERIFY2(idleCorner.blue() > idleCorner.red(), qPrintable(idleCorner.name()));
        QVERIFY2(busyCorner.red() > busyCorner.blue(), qPrintable(busyCorner.name()));
    }

    void itIsTheInstalledAppIconGreyWhenStopped()
    {
        // The same picture menus show (resources/icons, installed under share/icons/hicolor).
        // Compared premultiplied, as a pixmap holds it (the PNG file is not).
        const QImage installed =
            QImage(
                QStringLiteral(":/icons/hicolor/32x32/apps/io.github.code_sandbox.CodeSandbox.png"))
                .convertToFormat(QImage::Format_ARGB32_Premultiplied);
        QVERIFY(!installed.isNull());
        const QImage idle = TrayIcon::icon(0, true).pixmap(32).toImage().convertToFormat(
            QImage::Format_ARGB32_Premultiplied);
        QCOMPARE(idle, installed);
        // Left of the prompt, inside the box: blue while running, a plain mid grey when stopped;
        // the transparent margin stays transparent.
        const QImage stopped =
            TrayIcon::icon(0, false).pixmap(32).toImage().convertToFormat(QImage::Format_ARGB32);
        const QColor blue = idle.pixelColor(5, 16);
        const QColor grey = stopped.pixelColor(5, 16);
        QVERIFY2(blue.blue() > blue.red() + 60, qPrintable(blue.name()));
        QVERIFY2(grey.red() == grey.green() && grey.green() == grey.blue(),
                 qPrintable(grey.name()));
        QVERIFY2(grey.red() > 0x60 && grey.red() < 0xb0, qPrintable(grey.name()));
        QCOMPARE(stopped.pixelColor(0, 0).alpha(), 0);
        // The prompt's underscore stays white.
        QVERIFY(qGray(stopped.pixel(20, 21)) > 0xe0);
    }

    void theTooltipSaysWhatRuns()
    {
        TrayIcon tray;
        QVERIFY(tray.toolTip().contains(QLatin1String("stopped")));
        ServerStatus status;
        status.running = true;
        status.runningCalls = 2;
        status.pendingApprovals = 1;
        status.httpUrl = QUrl(QStringLiteral("http://127.0.0.1:8765/mcp"));
        tray.showStatus(status, true);
        const QString tip = tray.toolTip();
        QVERIFY2(tip.contains(QLatin1String("2 calls running")), qPrintable(tip));
        QVERIFY(tip.contains(QLatin1String("1 waiting for your approval")));
        QVERIFY(tip.contains(QLatin1String("http://127.0.0.1:8765/mcp")));
        QVERIFY(tip.contains(QLatin1String("stdio")));
    }

    // The offscreen platform has no system tray: a notification goes nowhere, says so, and
    // still tells who listens what it said.
    void aNotificationWithoutATrayBreaksNothing()
    {
        TrayIcon tray;
        QVERIFY(!tray.canShowMessages());
        QSignalSpy notified(&tray, &TrayIcon::notified);
        tray.notify(QStringLiteral("Title"), QStringLiteral("Text"));
        QCOMPARE(notified.count(), 1);
        QCOMPARE(notified.at(0), QVariantList({QStringLiteral("Title"), QStringLiteral("Text")}));
    }
};

QTEST_MAIN(tst_TrayIcon)
#include "tst_TrayIcon.moc"
