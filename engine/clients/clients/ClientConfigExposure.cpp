#include "clients/ClientConfigExposure.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace csm {

namespace {
QString shown(const QString& path)
{
    return QDir::toNativeSeparators(path);
}

// The folder that holds (or will hold) `configPath`: its own, or the nearest one above that
// exists, since that is where the missing ones will be created.
QString existingFolderOf(const QString& configPath)
{
    // Up by the path's text: QDir::cdUp() refuses a parent that does not exist either.
    QString folder = QFileInfo(configPath).absolutePath();
    while (!QFileInfo(folder).isDir()) {
        const QString parent = QFileInfo(folder).absolutePath();
        if (parent == folder)
            break;
        folder = parent;
    }
    return folder;
}

// The work tree whose .git (a folder, or a file for a worktree or submodule) is at or above
// `folder`; empty when there is none.
QString gitWorkTreeOf(const QString& folder)
{
    QDir dir(folder);
    for (;;) {
        if (QFileInfo::exists(dir.filePath(QStringLiteral(".git"))))
            return dir.absolutePath();
        if (dir.isRoot() || !dir.cdUp())
            return {};
    }
}
// The root of a folder that a sync client copies to its servers and to the user's other
// machines, found by the marker each client leaves at the root (Dropbox, Syncthing, Nextcloud
// and ownCloud) or by the folder names the others use (OneDrive, Google Drive, iCloud Drive,
// and macOS's ~/Library/CloudStorage, where every provider's folders are); empty when there is
// none.
QString syncFolderOf(const QString& folder)
{
    // Not ".dropbox": Dropbox keeps a folder of that name in the home folder too.
    static const QStringList markers = {
        QStringLiteral(".dropbox.cache"), QStringLiteral(".stfolder"), QStringLiteral(".sync_*.db"),
        QStringLiteral("._sync_*.db"), QStringLiteral(".owncloudsync.log")};
    static const QRegularExpression names(
        QStringLiteral("^(OneDrive|OneDrive - .+|OneDrive-.+|Google Drive|GoogleDrive-.+|My Drive|"
                       "Mobile Documents|CloudStorage)$"));
    QDir dir(folder);
    for (;;) {
        const QStringList found =
            dir.entryList(markers, QDir::AllEntries | QDir::Hidden | QDir::System);
        if (!found.isEmpty())
            return dir.absolutePath();
        if (names.match(dir.dirName()).hasMatch())
            return dir.absolutePath();
        if (dir.isRoot() || !dir.cdUp())
            return {};
    }
}

// Where the file's bytes really go: a link (stow, chezmoi, a dotfiles folder) is written
// through, so the token lands at its target; a missing file goes into the real folder above.
QString realPathOf(const QString& configPath, int linksLeft = 40)
{
    const QFileInfo info(configPath);
    if (info.exists())
        return info.canonicalFilePath();
    // Dangling: writing creates its target. A loop of links is where it is named.
    if (info.isSymLink() && linksLeft > 0)
        return realPathOf(info.symLinkTarget(), linksLeft - 1);
    const QString existing = existingFolderOf(configPath);
    const QString folder = QFileInfo(existing).canonicalFilePath();
    const QString rest = QDir(existing).relativeFilePath(info.absoluteFilePath());
    return folder.isEmpty() ? info.absoluteFilePath() : QDir(folder).filePath(rest);
}

QStringList warningsAt(const QString& configPath)
{
    QStringList found;
    const QString folder = existingFolderOf(configPath);
    const QFileInfo folderInfo(folder);
    if (folderInfo.permissions() & (QFileDevice::WriteGroup | QFileDevice::WriteOther)) {
        found << QStringLiteral("the folder %1 can be written by other users, who could replace "
                                "%2 or read the token in a copy of it; keep the configuration in "
                                "a folder only you can write to (chmod go-w %1)")
                     .arg(shown(folder), shown(configPath));
    }
    if (const QString workTree = gitWorkTreeOf(folder); !workTree.isEmpty()) {
        found << QStringLiteral("%1 is inside the git work tree %2: a commit and a push would "
                                "publish the token; keep the file out of the repository (e.g. in "
                                ".gitignore), or use the client's user-wide configuration")
                     .arg(shown(configPath), shown(workTree));
    }
    if (const QString synced = syncFolderOf(folder); !synced.isEmpty()) {
        found << QStringLiteral("%1 is inside %2, which a sync client copies to its servers and "
                                "to your other machines; keep the configuration outside it")
                     .arg(shown(configPath), shown(synced));
    }
    return found;
}
} // namespace

QStringList ClientConfigExposure::warnings(const QString& configPath)
{
    // Both where the file is named and where it really is: a link into a dotfiles repository
    // puts the token in that repository's work tree.
    QStringList found = warningsAt(configPath);
    const QString real = realPathOf(configPath);
    if (real != QFileInfo(configPath).absoluteFilePath()) {
        for (const QString& warning : warningsAt(real)) {
            if (!found.contains(warning))
                found << warning;
        }
    }
    return found;
}

} // namespace csm
