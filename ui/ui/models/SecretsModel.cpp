#include "ui/models/SecretsModel.h"

#include "secrets/SecretStore.h"

#include <QPointer>

#include <algorithm>

namespace csm {

namespace {

bool byName(const SecretInfo& a, const SecretInfo& b)
{
    return a.name < b.name;
}

bool sameRow(const SecretInfo& a, const SecretInfo& b)
{
    return a.name == b.name && a.passThrough == b.passThrough && a.updatedAt == b.updatedAt;
}

} // namespace

SecretsModel::SecretsModel(SecretStore& store, QObject* parent)
    : QAbstractTableModel(parent)
{
    setStore(store);
}

void SecretsModel::setStore(SecretStore& store)
{
    disconnect(m_storeChanged);
    m_store = &store;
    // The index changed through this store: seen at once, without waiting for the file watcher.
    m_storeChanged = connect(&store, &SecretStore::secretsChanged, this, &SecretsModel::refresh);
    refresh();
}

void SecretsModel::refresh()
{
    Expected<QList<SecretInfo>> listed = m_store->list();
    if (!listed) {
        setListError(listed.error());
        return;
    }
    QList<SecretInfo> fresh = *std::move(listed);
    setListError({});
    // The merge below needs both lists in the same order, whatever order the index keeps.
    std::sort(fresh.begin(), fresh.end(), byName);

    // One pass over both sorted lists: rows gone are removed, new ones inserted, changed ones
    // updated in place, so the view keeps its selection and scroll position.
    int row = 0;
    qsizetype next = 0;
    while (row < m_rows.size() || next < fresh.size()) {
        const bool rowGone =
            next == fresh.size() || (row < m_rows.size() && byName(m_rows.at(row), fresh.at(next)));
        if (rowGone) {
            beginRemoveRows({}, row, row);
            m_rows.removeAt(row);
            endRemoveRows();
            continue;
        }
        const bool rowNew = row == m_rows.size() || byName(fresh.at(next), m_rows.at(row));
        if (rowNew) {
            beginInsertRows({}, row, row);
            m_rows.insert(row, fresh.at(next));
            endInsertRows();
        } else if (!sameRow(m_rows.at(row), fresh.at(next))) {
            m_rows[row] = fresh.at(next);
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        }
        ++row;
        ++next;
    }
}

int SecretsModel::rowOf(const QString& name) const
{
    const auto found = std::find_if(m_rows.cbegin(), m_rows.cend(),
                                    [&name](const SecretInfo& info) { return info.name == name; });
    return found == m_rows.cend() ? -1 : int(found - m_rows.cbegin());
}

std::optional<SecretInfo> SecretsModel::secret(int row) const
{
    if (row < 0 || row >= m_rows.size())
        return std::nullopt;
    return m_rows.at(row);
}

int SecretsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SecretsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SecretsModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SecretInfo& secret = m_rows.at(index.row());
    if (role == NameRole)
        return secret.name;
    switch (index.column()) {
    case Name:
        if (role == Qt::DisplayRole)
            return secret.name;
        break;
    case PassThrough:
        if (role == Qt::CheckStateRole)
            return secret.passThrough ? Qt::Checked : Qt::Unchecked;
        if (role == Qt::ToolTipRole)
            return secret.passThrough
                       ? tr("Servers started from now on give %1 to every sandbox as an "
                            "environment variable")
                             .arg(secret.name)
                       : tr("Sandboxes do not get %1").arg(secret.name);
        break;
    case Updated:
        if (role == Qt::DisplayRole && !secret.updatedAt.isValid())
            return QStringLiteral("-");
        if (!secret.updatedAt.isValid())
            break;
        if (role == Qt::DisplayRole)
            return secret.updatedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        if (role == Qt::ToolTipRole)
            return secret.updatedAt.toUTC().toString(Qt::ISODate);
        break;
    default:
        break;
    }
    return {};
}

QVariant SecretsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Name");
    case PassThrough:
        return tr("Pass-through");
    case Updated:
        return tr("Updated");
    default:
        return {};
    }
}

Qt::ItemFlags SecretsModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == PassThrough)
        flags |= Qt::ItemIsUserCheckable;
    return flags;
}

bool SecretsModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::CheckStateRole || index.column() != PassThrough ||
        !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    const SecretInfo& secret = m_rows.at(index.row());
    const bool on = value.toInt() == Qt::Checked;
    if (on == secret.passThrough)
        return true;
    // The index is written at once (and secretsChanged() refreshes the row); the answer comes
    // later. It may be a refusal: another process removed the secret meanwhile.
    const QString name = secret.name;
    QPointer<SecretsModel> self(this);
    m_store->setPassThrough(name, on, [self, name](const QString& error) {
        if (!self || error.isEmpty())
            return;
        self->refresh();
        Q_EMIT self->passThroughFailed(name, error);
    });
    return true;
}

void SecretsModel::setListError(const QString& error)
{
    if (error == m_listError)
        return;
    m_listError = error;
    Q_EMIT listErrorChanged(error);
}

} // namespace csm
