#include "sandbox/SandboxFilesLocator.h"

#include "core/BuildPaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStringList>

namespace csm {

namespace {
constexpr char kLauncherVariable[] = "CODE_SANDBOX_LAUNCHER";
constexpr char kSeccompProfileVariable[] = "CODE_SANDBOX_SECCOMP_PROFILE";

QStringList candidatesFor(const char* fileName, const char* environmentVariable)
{
    const QString fromEnvironment = qEnvironmentVariable(environmentVariable);
    if (!fromEnvironment.isEmpty())
        return {fromEnvironment};
    const QDir binDir(QCoreApplication::applicationDirPath());
    const QString name = QString::fromLatin1(fileName);
    return {binDir.filePath(name),
            QDir::cleanPath(binDir.filePath(QString::fromLatin1(kLauncherDirFromBinDir) +
                                            QLatin1Char('/') + name))};
}

QString firstExisting(const QStringList& candidates, bool executable)
{
    for (const QString& path : candidates) {
        const QFileInfo file(path);
        if (file.isFile() && file.isReadable() && (!executable || file.isExecutable()))
            return file.absoluteFilePath();
    }
    return {};
}
} // namespace

SandboxFiles SandboxFilesLocator::find()
{
    return {findLauncher(), findSeccompProfile(), {}};
}

QStringList SandboxFilesLocator::launcherCandidates()
{
    return candidatesFor(kLauncherFileName, kLauncherVariable);
}

QStringList SandboxFilesLocator::seccompProfileCandidates()
{
    return candidatesFor(kSeccompProfileFileName, kSeccompProfileVariable);
}

QString SandboxFilesLocator::findLauncher()
{
    return firstExisting(launcherCandidates(), true);
}

QString SandboxFilesLocator::findSeccompProfile()
{
    return firstExisting(seccompProfileCandidates(), false);
}

QString SandboxFilesLocator::missingMessage(const SandboxFiles& files)
{
    QStringList missing;
    if (files.launcher.isEmpty()) {
        missing << QStringLiteral("the sandbox launcher %1 is missing (looked for %2); set %3 to "
                                  "its path")
                       .arg(QString::fromLatin1(kLauncherFileName),
                            launcherCandidates().join(QStringLiteral(", ")),
                            QString::fromLatin1(kLauncherVariable));
    }
    if (files.seccompProfile.isEmpty()) {
        missing << QStringLiteral("the sandbox's seccomp profile %1 is missing (looked for %2); "
                                  "set %3 to its path")
                       .arg(QString::fromLatin1(kSeccompProfileFileName),
                            seccompProfileCandidates().join(QStringLiteral(", ")),
                            QString::fromLatin1(kSeccompProfileVariable));
    }
    if (missing.isEmpty())
        return {};
    return QStringLiteral("No sandbox can be started: %1. Reinstall Code Sandbox.")
        .arg(missing.join(QStringLiteral("; ")));
}

} // namespace csm
