#include "ui/models/SessionsModel.h"

namespace csm {

SessionsModel::SessionsModel(QObject* parent)
    : KeyedTableModel(parent)
{}

bool SessionsModel::sameRow(const ServerStatus::Session& a, const ServerStatus::Session& b) const
{
    return a.transport == b.transport && a.sessionId == b.sessionId;
}

int SessionsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SessionsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        role != Qt::DisplayRole)
        return {};
    const ServerStatus::Session& session = rows().at(index.row());
    switch (index.column()) {
    case Client:
        if (session.clientName.isEmpty())
            return tr("(not initialized yet)");
        return session.clientVersion.isEmpty()
                   ? session.clientName
                   : tr("%1 %2").arg(session.clientName, session.clientVersion);
    case Transport:
        return session.transport;
    case Session:
        return session.sessionId.isEmpty() ? tr("(this process's stdin/stdout)")
                                           : session.sessionId;
    case RunningCalls:
        return session.runningCalls;
    default:
        return {};
    }
}

QVariant SessionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Client:
        return tr("Client");
    case Transport:
        return tr("Transport");
    case Session:
        return tr("Session");
    case RunningCalls:
        return tr("Running calls");
    default:
        return {};
    }
}

} // namespace csm
