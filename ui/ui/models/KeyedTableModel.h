#pragma once

#include <QAbstractTableModel>
#include <QList>

#include <algorithm>

namespace csm {

// A table whose rows are values with an identity (sameRow): setRows() brings it to a new list
// row by row, so that a view keeps its selection and scroll position when a status comes in.
// Gone rows go first, bottom up, then changed rows are updated, and new ones appended.
template <typename Row>
class KeyedTableModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;

    void setRows(const QList<Row>& next)
    {
        for (int row = static_cast<int>(m_rows.size()) - 1; row >= 0; --row) {
            const bool kept = std::any_of(next.cbegin(), next.cend(),
                                          [&](const Row& r) { return sameRow(r, m_rows.at(row)); });
            if (!kept) {
                beginRemoveRows({}, row, row);
                m_rows.removeAt(row);
                endRemoveRows();
            }
        }
        for (const Row& value : next) {
            const auto it = std::find_if(m_rows.begin(), m_rows.end(),
                                         [&](const Row& r) { return sameRow(r, value); });
            if (it == m_rows.end()) {
                const int row = static_cast<int>(m_rows.size());
                beginInsertRows({}, row, row);
                m_rows.append(value);
                endInsertRows();
            } else if (!(*it == value)) {
                *it = value;
                const int row = static_cast<int>(it - m_rows.begin());
                Q_EMIT dataChanged(index(row, 0), index(row, columnCount() - 1));
            }
        }
    }

    const QList<Row>& rows() const { return m_rows; }

    int rowCount(const QModelIndex& parent = {}) const override
    {
        return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
    }

protected:
    virtual bool sameRow(const Row& a, const Row& b) const = 0;

private:
    QList<Row> m_rows;
};

} // namespace csm
