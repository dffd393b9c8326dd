#include "ui/widgets/ChartLegend.h"

#include <QPainter>
#include <QPixmap>
#include <QResizeEvent>

#include <algorithm>

namespace csm {

ChartLegend::ChartLegend(QWidget* parent)
    : QListWidget(parent)
{
    setViewMode(QListView::ListMode);
    setFlow(QListView::LeftToRight);
    setWrapping(true);
    setResizeMode(QListView::Adjust);
    setSelectionMode(QAbstractItemView::NoSelection);
    setFocusPolicy(Qt::NoFocus);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSpacing(2);
    // The page's background, not a list's.
    viewport()->setAutoFillBackground(false);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ChartLegend::showEntries(const QList<Entry>& entries)
{
    clear();
    const int side = fontMetrics().height() * 2 / 3;
    for (const Entry& entry : entries) {
        QPixmap swatch(side, side);
        swatch.fill(entry.colour);
        auto* item = new QListWidgetItem(QIcon(swatch), entry.name, this);
        item->setToolTip(entry.name);
    }
    fitHeight();
}

QStringList ChartLegend::names() const
{
    QStringList shown;
    for (int row = 0; row < count(); ++row)
        shown << item(row)->text();
    return shown;
}

int ChartLegend::lineHeight() const
{
    return std::max(fontMetrics().height(), iconSize().height()) + 2 * spacing() + 4;
}

QSize ChartLegend::sizeHint() const
{
    return {QListWidget::sizeHint().width(), height()};
}

QSize ChartLegend::minimumSizeHint() const
{
    return {0, lineHeight()};
}

void ChartLegend::resizeEvent(QResizeEvent* event)
{
    QListWidget::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        fitHeight();
}

void ChartLegend::fitHeight()
{
    // The lines the entries take at this width, laid out as the view lays them.
    int lines = count() > 0 ? 1 : 0;
    int x = 0;
    const int width = std::max(1, viewport()->width());
    for (int row = 0; row < count(); ++row) {
        const int itemWidth = sizeHintForIndex(model()->index(row, 0)).width() + 2 * spacing();
        if (x > 0 && x + itemWidth > width) {
            ++lines;
            x = 0;
        }
        x += itemWidth;
    }
    const bool scrolls = lines > kMaxLines;
    setVerticalScrollBarPolicy(scrolls ? Qt::ScrollBarAsNeeded : Qt::ScrollBarAlwaysOff);
    setFixedHeight(std::max(1, std::min(lines, kMaxLines)) * lineHeight() + 2 * frameWidth());
}

} // namespace csm
