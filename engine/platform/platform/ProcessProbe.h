#pragma once

#include <QtGlobal>

namespace csm {

// Asks the operating system about other processes. Platform specifics stay in here.
class ProcessProbe final
{
public:
    // True when a process with this id exists and is a Code Sandbox process (its name starts
    // with "code-sandbox"), so that a reused pid does not keep a dead server's containers alive.
    // This process counts as alive. When the process exists but its name cannot be read (another
    // user's process under hidepid, or a platform without /proc), it counts as alive: a
    // container is only ever removed when its server is known to be gone.
    static bool isCodeSandboxProcessAlive(qint64 pid);
};

} // namespace csm
