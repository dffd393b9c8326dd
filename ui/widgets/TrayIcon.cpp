#include "widgets/TrayIcon.h"

#include <QMenu>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace csm {

TrayIcon::TrayIcon(QObject* parent)
    : QSystemTrayIcon(parent)
    , m_menu(std::make_unique<QMenu>())
{
    m_menu->addAction(tr("Show Code Sandbox"), this, &TrayIcon::showWindowRequested);
    m_menu->addSeparator();
    m_menu->addAction(tr("Quit"), this, &TrayIcon::quitRequested);
    setContextMenu(m_menu.get());
    connect(this, &QSystemTrayIcon::activated, this, [this](ActivationReason reason) {
        if (reason == Trigger || reason == DoubleClick)
            Q_EMIT showWindowRequested();
    });
    showStatus({}, false);
}

TrayIcon::~TrayIcon() = default;

QIcon TrayIcon::icon(int runningCalls, bool running)
{
    QIcon icon;
    for (int size : {16, 22, 32, 48, 64}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        // A box (the sandbox) with a prompt in it; grey while the server is stopped.
        const QRectF box(size * 0.06, size * 0.06, size * 0.88, size * 0.88);
        painter.setPen(Qt::NoPen);
        painter.setBrush(running ? QColor(0x1f, 0x6f, 0xb2) : QColor(0x80, 0x80, 0x80));
        painter.drawRoundedRect(box, size * 0.18, size * 0.18);
        QPen pen(Qt::white, std::max(1.5, size * 0.09), Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
        painter.setPen(pen);
        QPainterPath prompt;
        prompt.moveTo(size * 0.28, size * 0.32);
        prompt.lineTo(size * 0.46, size * 0.50);
        prompt.lineTo(size * 0.28, size * 0.68);
        painter.drawPath(prompt);
        painter.drawLine(QPointF(size * 0.52, size * 0.68), QPointF(size * 0.72, size * 0.68));
        if (runningCalls > 0) {
            const QRectF badge(size * 0.46, 0, size * 0.54, size * 0.54);
            painter.setPen(Qt::NoPen);
            painter.setBrush(QColor(0xd9, 0x48, 0x2b));
            painter.drawEllipse(badge);
            QFont font = painter.font();
            font.setPixelSize(std::max(7, int(size * 0.36)));
            font.setBold(true);
            painter.setFont(font);
            painter.setPen(Qt::white);
            painter.drawText(badge, Qt::AlignCenter,
                             runningCalls > 9 ? QStringLiteral("9+")
                                              : QString::number(runningCalls));
        }
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

void TrayIcon::showStatus(const ServerStatus& status, bool servingStdio)
{
    if (status.runningCalls != m_shownCount || status.running != m_shownRunning) {
        m_shownCount = status.runningCalls;
        m_shownRunning = status.running;
        setIcon(icon(status.runningCalls, status.running));
    }
    QStringList lines{tr("Code Sandbox")};
    if (!status.running) {
        lines << tr("Server stopped");
    } else {
        if (servingStdio)
            lines << tr("Serving an assistant over stdio");
        if (status.httpUrl.isValid())
            lines << tr("HTTP: %1").arg(status.httpUrl.toString());
        lines << tr("%n call(s) running", nullptr, status.runningCalls);
        if (status.pendingApprovals > 0)
            lines << tr("%n waiting for your approval", nullptr, status.pendingApprovals);
    }
    setToolTip(lines.join(QLatin1Char('\n')));
}

} // namespace csm
