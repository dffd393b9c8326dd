#pragma once

#include "history/RunConnectionRecord.h"

#include <QList>
#include <QTreeWidget>

namespace csm {

// The Network tab of a run: each connection its program made through the egress proxy, in the
// order they ended: the host and port it asked for, whether it went (and the policy's reason,
// or why it was cut), the address it went to, the bytes each way and how long it lasted.
// Refused ones stand out. Host names are the program's own words: shown as text, never markup.
class RunNetworkView final : public QTreeWidget
{
    Q_OBJECT

public:
    enum Column
    {
        HostColumn,
        OutcomeColumn,
        AddressColumn,
        SentColumn,
        ReceivedColumn,
        DurationColumn,
        ReasonColumn,
    };

    explicit RunNetworkView(QWidget* parent = nullptr);

    // `notListed`: connections past those the record keeps, said in a last row.
    void showConnections(const QList<RunConnectionRecord>& connections, int notListed = 0);
    // "Network", "Network (3)" or "Network (3, 1 refused)": what the tab says at a glance (the
    // count includes those not listed).
    static QString tabTitle(const QList<RunConnectionRecord>& connections, int notListed = 0);
};

} // namespace csm
