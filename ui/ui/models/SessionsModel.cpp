#include "ui/models/SessionsModel.h"

#include <algorithm>

namespace csm {

namespace {
bool sameSession(const ServerStatus::Session& a, const ServerStatus::Session& b)
{
    return a.transport == b.transport && a.sessionId == b.sessionId;
}
} // namespace

SessionsModel::SessionsModel(QObject* parent)
    : QAbstractTableModel(parent)
{}

void SessionsModel::setSessions(const QList<ServerStatus::Session>& sessions)
{
    // Gone sessions first, bottom up, then changed rows, then new ones at the end.
    for (int row = static_cast<int>(m_sessions.size()) - 1; row >= 0; --row) {
        const bool kept = std::any_of(sessions.cbegin(), sessions.cend(), [&](const auto& s) {
            return sameSession(s, m_sessions.at(row));
        });
        if (!kept) {
            beginRemoveRows({}, row, row);
            m_sessions.removeAt(row);
            endRemoveRows();
        }
    }
    for (const ServerStatus::Session& session : sessions) {
        const auto it = std::find_if(m_sessions.begin(), m_sessions.end(),
                                     [&](const auto& s) { return sameSession(s, session); });
        if (it == m_sessions.end()) {
            const int row = static_cast<int>(m_sessions.size());
            beginInsertRows({}, row, row);
            m_sessions.append(session);
            endInsertRows();
        } else if (!(*it == session)) {
            *it = session;
            const int row = static_cast<int>(it - m_sessions.begin());
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
    }
}

int SessionsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_sessions.size());
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
    const ServerStatus::Session& session = m_sessions.at(index.row());
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
