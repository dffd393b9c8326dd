#pragma once

#include "server/ServerStatus.h"

#include <QAbstractTableModel>

namespace csm {

// The embedded server's MCP sessions: who is connected, over what, and how busy.
class SessionsModel final : public QAbstractTableModel
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
    void setSessions(const QList<ServerStatus::Session>& sessions);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<ServerStatus::Session> m_sessions;
};

} // namespace csm
