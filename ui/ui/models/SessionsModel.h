#pragma once

#include "server/ServerStatus.h"
#include "ui/models/KeyedTableModel.h"

namespace csm {

// The embedded server's MCP sessions: who is connected, over what, and how busy.
class SessionsModel final : public KeyedTableModel<ServerStatus::Session>
{
    Q_OBJECT

public:
    enum Column
    {
        Client,
        Transport,
        Session,
        RunningCalls,
        ColumnCount,
    };

    explicit SessionsModel(QObject* parent = nullptr);

    // Rows are matched by session id and transport, so a view keeps its selection.
    void setSessions(const QList<ServerStatus::Session>& sessions) { setRows(sessions); }

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

protected:
    bool sameRow(const ServerStatus::Session& a, const ServerStatus::Session& b) const override;
};

} // namespace csm
