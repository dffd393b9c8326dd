#include "runtime/ContainersFolder.h"

#include "core/BuildPaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace csm {

QStringList ContainersFolder::candidates()
{
    const QString fromEnvironment = qEnvironmentVariable("CODE_SANDBOX_CONTAINERS");
    if (!fromEnvironment.isEmpty())
        return {fromEnvironment};
    const QDir binDir(QCoreApplication::applicationDirPath());
    return {QDir::cleanPath(binDir.filePath(QString::fromLatin1(kContainersDirFromBinDir))),
            QString::fromLatin1(kSourceContainersDir)};
}

QString ContainersFolder::find()
{
    for (const QString& folder : candidates()) {
        const QFileInfo script(buildScript(folder));
        if (script.isFile() && script.isExecutable())
            return QFileInfo(folder).absoluteFilePath();
    }
    return {};
}

QString ContainersFolder::buildScript(const QString& folder)
{
    return QDir(folder).filePath(QStringLiteral("build-images"));
}

QStringList ContainersFolder::buildScriptArguments(const QString& engine, Language language,
                                                   bool force)
{
    QStringList args{QStringLiteral("--engine"), engine, QStringLiteral("--only"),
                     language == Language::JavaScript ? QStringLiteral("js")
                                                      : QStringLiteral("python")};
    if (force)
        args << QStringLiteral("--force");
    return args;
}

QString ContainersFolder::dockerfile(const QString& folder, Language language)
{
    return QDir(folder).filePath(language == Language::JavaScript
                                     ? QStringLiteral("Dockerfile.nodejs")
                                     : QStringLiteral("Dockerfile.python"));
}

} // namespace csm
