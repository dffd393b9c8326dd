#include "history/HistoryLocation.h"

#include "history/HistoryStore.h"

#include <QDir>
#include <QFileInfo>

namespace csm {

QString HistoryLocation::dataDir(const QString& dataDirFlag, const QProcessEnvironment& environment)
{
    QString dir = dataDirFlag.trimmed();
    if (dir.isEmpty())
        dir = environment.value(dataDirVariable()).trimmed();
    if (dir.isEmpty())
        return QFileInfo(HistoryStore::defaultPath()).absolutePath();
    return QDir::cleanPath(QDir(dir).absolutePath());
}

QString HistoryLocation::historyPath(const QString& dataDir)
{
    return dataDir + QStringLiteral("/history.sqlite");
}

} // namespace csm
