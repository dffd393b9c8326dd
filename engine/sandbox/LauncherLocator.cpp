#include "sandbox/LauncherLocator.h"

#include "core/BuildPaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStringList>

namespace csm {

QStringList LauncherLocator::candidates()
{
    QStringList paths;
    const QString fromEnvironment = qEnvironmentVariable("CODE_SANDBOX_LAUNCHER");
    if (!fromEnvironment.isEmpty())
        return {fromEnvironment};
    const QDir binDir(QCoreApplication::applicationDirPath());
    const QString name = QString::fromLatin1(kLauncherFileName);
    paths << binDir.filePath(name)
          << QDir::cleanPath(binDir.filePath(QString::fromLatin1(kLauncherDirFromBinDir) +
                                             QLatin1Char('/') + name));
    return paths;
}

QString LauncherLocator::find()
{
    for (const QString& path : candidates()) {
        const QFileInfo file(path);
        if (file.isFile() && file.isExecutable())
            return file.absoluteFilePath();
    }
    return {};
}

} // namespace csm
