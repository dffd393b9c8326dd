#pragma once

#include <QString>
#include <QStringList>

namespace csm {

// Where a client configuration file that holds a token can still reach other people although the
// file itself is readable by its owner only:
// - its folder (or, while that does not exist, the nearest folder above it that does) can be
//   written by the group or by others, who could then replace the file or take its backups;
// - it is inside a git work tree (a project's .vscode folder, a home folder kept in git), where
//   a commit and a push publish it;
// - it is inside a folder a sync client copies elsewhere (Dropbox, Syncthing, Nextcloud,
//   OneDrive, Google Drive, iCloud Drive).
// Both are checked where the file is named and where it really is (a symbolic link, made by stow,
// chezmoi or by hand, is written through). Each finding is one sentence that names the place and
// what to do.
class ClientConfigExposure final
{
public:
    static QStringList warnings(const QString& configPath);
};

} // namespace csm
