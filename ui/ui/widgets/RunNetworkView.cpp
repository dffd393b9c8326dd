#include "ui/widgets/RunNetworkView.h"

#include "core/ByteSize.h"

#include <QBrush>
#include <QHeaderView>
#include <QPalette>

#include <algorithm>

namespace csm {

RunNetworkView::RunNetworkView(QWidget* parent)
    : QTreeWidget(parent)
{
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setHeaderLabels({tr("Host"), tr("Outcome"), tr("Address"), tr("Sent"), tr("Received"),
                     tr("Duration"), tr("Reason")});
    header()->setStretchLastSection(true);
    header()->setSectionResizeMode(QHeaderView::Interactive);
}

void RunNetworkView::showConnections(const QList<RunConnectionRecord>& connections)
{
    clear();
    QList<QTreeWidgetItem*> items;
    items.reserve(connections.size());
    for (const RunConnectionRecord& connection : connections) {
        auto* item = new QTreeWidgetItem;
        item->setText(HostColumn,
                      connection.host.isEmpty()
                          ? tr("(no request)")
                          : QStringLiteral("%1:%2").arg(connection.host).arg(connection.port));
        item->setText(OutcomeColumn, connection.allowed ? tr("Allowed") : tr("Refused"));
        item->setText(AddressColumn, connection.address);
        item->setText(SentColumn, ByteSize::format(connection.bytesSent));
        item->setText(ReceivedColumn, ByteSize::format(connection.bytesReceived));
        item->setText(DurationColumn, tr("%1 s").arg(connection.durationMs / 1000.0, 0, 'f', 2));
        item->setText(ReasonColumn, connection.reason);
        item->setToolTip(ReasonColumn, connection.reason);
        item->setToolTip(HostColumn, connection.startedAt.toLocalTime().toString(Qt::ISODate));
        for (int column : {SentColumn, ReceivedColumn, DurationColumn})
            item->setTextAlignment(column, Qt::AlignRight | Qt::AlignVCenter);
        if (!connection.allowed)
            item->setForeground(OutcomeColumn, QBrush(QColor(0xc0, 0x1c, 0x28)));
        items.append(item);
    }
    addTopLevelItems(items);
    for (int column = 0; column < ReasonColumn; ++column)
        resizeColumnToContents(column);
}

QString RunNetworkView::tabTitle(const QList<RunConnectionRecord>& connections)
{
    if (connections.isEmpty())
        return tr("Network");
    const auto refused = std::count_if(connections.cbegin(), connections.cend(),
                                       [](const RunConnectionRecord& c) { return !c.allowed; });
    if (refused == 0)
        return tr("Network (%1)").arg(connections.size());
    return tr("Network (%1, %2 refused)").arg(connections.size()).arg(refused);
}

} // namespace csm
