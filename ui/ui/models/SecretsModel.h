#pragma once

#include "secrets/SecretInfo.h"

#include <QAbstractTableModel>
#include <QList>

#include <optional>

namespace csm {

class SecretStore;

// The secrets of a SecretStore as a table for the Secrets page: names, pass-through flags and
// update times, never a value.
//
// refresh() rereads the index (secrets.json), which other processes (the CLI, a server, another
// window) may change, and inserts, removes or updates only the rows that differ, so the view
// keeps its selection. The model refreshes itself when its own store changes the index; the page
// calls refresh() when the file changes on disk. The pass-through column is checkable: checking
// it changes the flag in the store (the index only, so it works before the store is open).
class SecretsModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column
    {
        Name,
        PassThrough,
        Updated,
        ColumnCount,
    };

    enum Role
    {
        NameRole = Qt::UserRole + 1, // QString, in every column
    };

    // `store` must outlive the model, or be replaced with setStore() first.
    explicit SecretsModel(SecretStore& store, QObject* parent = nullptr);

    // For a store reopened over the same data folder; refreshes.
    void setStore(SecretStore& store);

    // Rereads the index. On failure the rows stay as they were and listError() says why.
    void refresh();
    // Why the index could not be read at the last refresh; empty when it could.
    QString listError() const { return m_listError; }

    // The row of the secret called `name`, or -1.
    int rowOf(const QString& name) const;
    std::optional<SecretInfo> secret(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

Q_SIGNALS:
    // listError() changed (to empty when the index can be read again).
    void listErrorChanged(const QString& error);
    // Checking or unchecking a pass-through box failed; `error` is a sentence for the user.
    void passThroughFailed(const QString& name, const QString& error);

private:
    void setListError(const QString& error);

    SecretStore* m_store = nullptr;
    QMetaObject::Connection m_storeChanged;
    QList<SecretInfo> m_rows; // sorted by name
    QString m_listError;
};

} // namespace csm
