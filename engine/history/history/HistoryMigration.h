#pragma once

#include <QString>
#include <QStringList>

namespace csm {

// One step of the history database's schema: SQL that takes it from version `version - 1` to
// `version`. HistoryStore applies the steps in order, each in its own transaction together with
// the new `PRAGMA user_version`, so a step is applied completely or not at all.
struct HistoryMigration
{
    int version = 0;
    QString description;
    QStringList statements; // one SQL statement each (QtSql runs one statement per exec)
};

} // namespace csm
