#include "ui/widgets/TrayIcon.h"

#include "ui/Plural.h"

#include <QImage>
#include <QMenu>
#include <QPainter>
#include <QPixmap>
#include <QSignalBlocker>

namespace csm {

namespace {

// The app's icon, as installed for menus (resources/icons/hicolor), from the Qt resource.
QIcon appIcon()
{
    QIcon icon;
    for (int size : {16, 32, 48, 64, 128, 256})
        icon.addFile(
            QStringLiteral(":/icons/hicolor/%1x%1/apps/io.github.code_sandbox.CodeSandbox.png")
                .arg(size));
    return icon;
}

// Grey while the server is stopped: the icon's own shapes, desaturated and lifted a little so
// the blue box reads as the mid grey of a disabled icon rather than near black.
QImage greyed(const QImage& source)
{
    QImage image = source.convertToFormat(QImage::Format_ARGB32);
    for (int y = 0; y < image.height(); ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < image.width(); ++x) {
            const int grey = 0x40 + qGray(line[x]) * 3 / 4;
            line[x] = qRgba(grey, grey, grey, qAlpha(line[x]));
        }
    }
    return image;
}

} // namespace

TrayIcon::TrayIcon(QObject* parent)
    : QSystemTrayIcon(parent)
    , m_menu(std::make_unique<QMenu>())
{
    m_running = m_menu->addAction(tr("No call running"));
    m_running->setEnabled(false);
    m_running->setObjectName(QStringLiteral("trayRunning"));
    m_menu->addSeparator();
    m_approval = m_menu->addAction(tr("Ask before each call"));
    m_approval->setCheckable(true);
    m_approval->setObjectName(QStringLiteral("trayApproval"));
    connect(m_approval, &QAction::toggled, this, &TrayIcon::approvalRequiredChanged);
    m_failures = m_menu->addMenu(tr("Last failures"));
    m_failures->setObjectName(QStringLiteral("trayFailures"));
    m_menu->addSeparator();
    m_menu->addAction(tr("Show Code Sandbox"), this, &TrayIcon::showWindowRequested);
    m_menu->addAction(tr("Quit"), this, &TrayIcon::quitRequested);
    connect(m_menu.get(), &QMenu::aboutToShow, this, &TrayIcon::refreshFailures);
    setContextMenu(m_menu.get());
    refreshFailures();
    connect(this, &QSystemTrayIcon::activated, this, [this](ActivationReason reason) {
        if (reason == Trigger || reason == DoubleClick)
            Q_EMIT showWindowRequested();
    });
    connect(this, &QSystemTrayIcon::messageClicked, this, &TrayIcon::showWindowRequested);
    showStatus({}, false);
}

TrayIcon::~TrayIcon() = default;

void TrayIcon::setRecentFailures(std::function<QList<RunItem>()> source)
{
    m_failureSource = std::move(source);
    refreshFailures();
}

void TrayIcon::setApprovalRequired(bool required)
{
    const QSignalBlocker blocker(m_approval);
    m_approval->setChecked(required);
}

QMenu* TrayIcon::menu()
{
    refreshFailures();
    return m_menu.get();
}

void TrayIcon::refreshFailures()
{
    m_failures->clear();
    const QList<RunItem> failures = m_failureSource ? m_failureSource() : QList<RunItem>();
    for (const RunItem& failure : failures) {
        QAction* item = m_failures->addAction(failure.text);
        const qint64 id = failure.id;
        connect(item, &QAction::triggered, this, [this, id] { Q_EMIT runRequested(id); });
    }
    if (failures.isEmpty())
        m_failures->addAction(tr("None lately"))->setEnabled(false);
}

QIcon TrayIcon::icon(int runningCalls, bool running)
{
    const QIcon base = appIcon();
    QIcon icon;
    for (int size : {16, 22, 32, 48, 64, 128, 256}) {
        const QImage face = base.pixmap(QSize(size, size), 1.0).toImage();
        QPixmap pixmap = QPixmap::fromImage(running ? face : greyed(face));
        if (runningCalls > 0) {
            QPainter painter(&pixmap);
            painter.setRenderHint(QPainter::Antialiasing);
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
        icon.addPixmap(pixmap);
    }
    return icon;
}

bool TrayIcon::canShowMessages() const
{
    return isVisible() && isSystemTrayAvailable() && supportsMessages();
}

void TrayIcon::notify(const QString& title, const QString& text)
{
    if (canShowMessages())
        showMessage(title, text, icon(0, true));
    Q_EMIT notified(title, text);
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
        m_running->setText(tr("Server stopped"));
    } else {
        if (servingStdio)
            lines << tr("Serving an assistant over stdio");
        if (status.httpUrl.isValid())
            lines << tr("HTTP: %1").arg(status.httpUrl.toString());
        lines << tr("%1 running").arg(Plural::of(status.runningCalls, "call", "calls"));
        m_running->setText(
            status.runningCalls > 0
                ? tr("%1 running").arg(Plural::of(status.runningCalls, "call", "calls"))
                : tr("No call running"));
        if (status.pendingApprovals > 0)
            lines << tr("%n waiting for your approval", nullptr, status.pendingApprovals);
    }
    setToolTip(lines.join(QLatin1Char('\n')));
}

} // namespace csm
