#include "history/HistoryStore.h"

#include "history/HistoryDatabase.h"
#include "history/HistorySchema.h"

#include <QStandardPaths>

namespace csm {

QString HistoryStore::defaultPath()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/code-sandbox/history.sqlite");
}

Expected<std::unique_ptr<HistoryStore>> HistoryStore::open(const QString& path)
{
    return open(path, HistorySchema::migrations());
}

Expected<std::unique_ptr<HistoryStore>>
HistoryStore::open(const QString& path, const QList<HistoryMigration>& migrations)
{
    Expected<std::unique_ptr<HistoryDatabase>> database = HistoryDatabase::open(path, migrations);
    if (!database)
        return Unexpected(database.error());
    return std::unique_ptr<HistoryStore>(new HistoryStore(*std::move(database)));
}

HistoryStore::HistoryStore(std::unique_ptr<HistoryDatabase> database)
    : m_database(std::move(database))
    , m_stopRequests(*m_database)
    , m_ledger(*m_database, m_stopRequests)
    , m_queries(*m_database)
    , m_retention(*m_database)
{}

HistoryStore::~HistoryStore() = default;

QString HistoryStore::path() const
{
    return m_database->path();
}

QString HistoryStore::filesRoot() const
{
    return m_database->filesRoot();
}

int HistoryStore::schemaVersion() const
{
    return m_database->schemaVersion();
}

Expected<void> HistoryStore::setBusyTimeout(std::chrono::milliseconds timeout)
{
    return m_database->setBusyTimeout(timeout);
}

} // namespace csm
