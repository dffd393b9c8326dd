#include "history/RunDeletion.h"

#include "core/RunFilesStore.h"
#include "history/HistoryDatabase.h"

#include <QSqlQuery>

namespace csm {

RunDeletion::RunDeletion(HistoryDatabase& database, const char* what)
    : m_database(database)
    , m_what(what)
{}

Expected<qint64> RunDeletion::inTransaction(HistoryDatabase& database, const char* what,
                                            const std::function<Expected<void>(RunDeletion&)>& body)
{
    RunDeletion deletion(database, what);
    const Expected<void> written = database.write(what, [&] { return body(deletion); });
    if (!written)
        return Unexpected(written.error()); // rolled back: the folders stay with their runs
    const RunFilesStore files(database.filesRoot());
    for (const QString& key : std::as_const(deletion.m_filesKeys))
        files.remove(key);
    return deletion.m_deleted;
}

Expected<void> RunDeletion::deleteWhere(const QString& condition, const QVariantList& values)
{
    QSqlQuery keys = m_database.query();
    keys.prepare(QStringLiteral("SELECT files_key FROM runs WHERE files_key != '' AND (") +
                 condition + u')');
    for (const QVariant& value : values)
        keys.addBindValue(value);
    if (Expected<void> read = m_database.execute(keys, m_what); !read)
        return read;
    while (keys.next())
        m_filesKeys.append(keys.value(0).toString());

    QSqlQuery deletion = m_database.query();
    deletion.prepare(QStringLiteral("DELETE FROM runs WHERE ") + condition);
    for (const QVariant& value : values)
        deletion.addBindValue(value);
    if (Expected<void> deleted = m_database.execute(deletion, m_what); !deleted)
        return deleted;
    const qint64 deleted = deletion.numRowsAffected();
    if (deleted > 0 && m_deleted == 0) {
        if (Expected<void> counted = m_database.bumpDeletionSeq(); !counted)
            return counted;
    }
    m_deleted += deleted;
    return {};
}

} // namespace csm
