#pragma once

#include <QProcessEnvironment>
#include <QString>

namespace csm {

// Where the run history lives, for the server and the `history` command alike: a data folder
// chosen by --data-dir, else $CODE_SANDBOX_DATA_DIR, else the folder of
// HistoryStore::defaultPath(); the database is history.sqlite in it.
class HistoryLocation final
{
public:
    static QString dataDirVariable() { return QStringLiteral("CODE_SANDBOX_DATA_DIR"); }
    // `dataDirFlag`: the --data-dir value, empty when not given.
    static QString dataDir(const QString& dataDirFlag, const QProcessEnvironment& environment);
    static QString historyPath(const QString& dataDir);
};

} // namespace csm
