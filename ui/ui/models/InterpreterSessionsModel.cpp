#include "ui/models/InterpreterSessionsModel.h"

#include "runtime/Language.h"

#include <QLocale>

#include <algorithm>

namespace csm {

InterpreterSessionsModel::InterpreterSessionsModel(QObject* parent)
    : KeyedTableModel(parent)
{}

bool InterpreterSessionsModel::sameRow(const ServerStatus::InterpreterSession& a,
                                       const ServerStatus::InterpreterSession& b) const
{
    return a.key == b.key;
}

void InterpreterSessionsModel::refreshTimes()
{
    if (!rows().isEmpty())
        Q_EMIT dataChanged(index(0, Idle), index(rowCount() - 1, Started));
}

int InterpreterSessionsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString InterpreterSessionsModel::durationText(qint64 ms)
{
    const qint64 seconds = std::max<qint64>(0, ms / 1000);
    if (seconds < 60)
        return tr("%1 s").arg(seconds);
    if (seconds < 3600)
        return tr("%1 min").arg(seconds / 60);
    return tr("%1 h %2 min").arg(seconds / 3600).arg(seconds / 60 % 60);
}

QVariant InterpreterSessionsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ServerStatus::InterpreterSession& session = rows().at(index.row());
    if (role == Qt::ToolTipRole) {
        return tr("Container %1, over %2").arg(session.key, session.transport);
    }
    if (role == Qt::TextAlignmentRole && (index.column() == Cells || index.column() == Memory))
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    const QDateTime now = QDateTime::currentDateTimeUtc();
    switch (index.column()) {
    case Name:
        return session.name;
    case Client:
        return session.clientName.isEmpty() ? tr("(unnamed client)") : session.clientName;
    case Language: {
        const auto language = LanguageTraits::parse(session.language);
        return language ? LanguageTraits::displayName(*language) : session.language;
    }
    case Cells:
        return session.cells;
    case Memory:
        return session.memoryBytes >= 0 ? QLocale().formattedDataSize(session.memoryBytes)
                                        : tr("–");
    case Idle:
        return session.running ? tr("running a cell")
                               : durationText(session.lastActiveAt.msecsTo(now));
    case Started:
        return tr("%1 ago").arg(durationText(session.startedAt.msecsTo(now)));
    default:
        return {};
    }
}

QVariant InterpreterSessionsModel::headerData(int section, Qt::Orientation orientation,
                                              int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Session");
    case Client:
        return tr("Client");
    case Language:
        return tr("Language");
    case Cells:
        return tr("Cells");
    case Memory:
        return tr("Memory");
    case Idle:
        return tr("Idle");
    case Started:
        return tr("Started");
    default:
        return {};
    }
}

} // namespace csm
