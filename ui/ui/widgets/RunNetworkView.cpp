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

void RunNetworkView::showConnections(const QList<RunConnectionRecord>& connections, int notListed)
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
        item->setText(SentColumn, ByteSize::forPeople(connection.bytesSent));
        item->setText(ReceivedColumn, ByteSize::forPeople(connection.bytesReceived));
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
    if (notListed > 0) {
        auto* more = new QTreeWidgetItem;
        more->setText(HostColumn, notListed == 1
                                      ? tr("1 more connection not listed")
                                      : tr("%1 more connections not listed").arg(notListed));
        more->setText(ReasonColumn, tr("a run's record keeps its first %1 connections; past its "
                                       "connection limit the proxy refuses the rest")
                                        .arg(connections.size()));
        more->setFlags(Qt::ItemIsEnabled);
        more->setForeground(HostColumn, palette().brush(QPalette::Disabled, QPalette::Text));
        items.append(more);
    }
    addTopLevelItems(items);
    for (int column = 0; column < ReasonColumn; ++column)
        resizeColumnToContents(column);
}

QString RunNetworkView::tabTitle(const QList<RunConnectionRecord>& connections, int notListed)
{
    const qsizetype total = connections.size() + notListed;
    if (total == 0)
        return tr("Network");
    const auto refused = std::count_if(connections.cbegin(), connections.cend(),
                                       [](const RunConnectionRecord& c) { return !c.allowed; });
    if (refused == 0)
        return tr("Network (%1)").arg(total);
    return tr("Network (%1, %2 refused)").arg(total).arg(refused);
}

} // namespace csm
