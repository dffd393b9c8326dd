#pragma once

#include <QString>

namespace csm {

// Finds csm-launch, the sandbox's PID 1, on the host: $CODE_SANDBOX_LAUNCHER, else beside the
// server (build tree), else in the installation's libexec folder.
class LauncherLocator final
{
public:
    // The absolute path, or empty when there is none.
    static QString find();
    // Where find() looked, for the error message when it finds nothing.
    static QStringList candidates();
};

} // namespace csm
