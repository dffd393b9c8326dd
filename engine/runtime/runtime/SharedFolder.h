#pragma once

#include "platform/FolderIdentity.h"

#include <QString>

namespace csm {

// A host folder that the user shares with every sandbox, mounted at /data/NAME. Only the user
// names it (a flag, a variable, settings.ini, the desktop app): never a call.
struct SharedFolder
{
    // Where every shared folder is mounted inside a sandbox.
    static constexpr const char* kMountRoot = "/data";

    QString hostPath; // canonical: a symlink to the folder means the folder it points at
    QString name;     // [A-Za-z0-9._-], unique among the shares
    bool writable = false;
    // Which folder hostPath named when the user shared it: checked before each container start,
    // as the engine resolves the path again then.
    FolderIdentity identity{};

    QString mountPoint() const { return QLatin1String(kMountRoot) + QLatin1Char('/') + name; }

    // The same setting: which folder the path named when each was read is not part of it.
    friend bool operator==(const SharedFolder& a, const SharedFolder& b)
    {
        return a.hostPath == b.hostPath && a.name == b.name && a.writable == b.writable;
    }
};

} // namespace csm
