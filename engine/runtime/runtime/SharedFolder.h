#pragma once

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

    QString mountPoint() const { return QLatin1String(kMountRoot) + QLatin1Char('/') + name; }

    friend bool operator==(const SharedFolder&, const SharedFolder&) = default;
};

} // namespace csm
