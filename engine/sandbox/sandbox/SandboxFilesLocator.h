#pragma once

#include "runtime/SandboxFiles.h"

#include <QString>
#include <QStringList>

namespace csm {

// Finds the host files of the sandbox (the launcher csm-launch and the seccomp profile
// csm-seccomp.json): each from its environment variable ($CODE_SANDBOX_LAUNCHER,
// $CODE_SANDBOX_SECCOMP_PROFILE), else beside the server (build tree), else in the
// installation's libexec folder.
class SandboxFilesLocator final
{
public:
    // Whatever was found; a missing file is an empty path.
    static SandboxFiles find();

    // The absolute path, or empty when there is none.
    static QString findLauncher();
    static QString findSeccompProfile();
    // Where the find functions looked, for the error message when they find nothing.
    static QStringList launcherCandidates();
    static QStringList seccompProfileCandidates();
    // What a run answers, and a server logs, when a file is missing: which, where it was looked
    // for, and the fix. Empty when `files` is complete.
    static QString missingMessage(const SandboxFiles& files);
};

} // namespace csm
