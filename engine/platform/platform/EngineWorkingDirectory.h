#pragma once

#include <QString>

namespace csm {

// A private folder (0700, removed when the process exits) that the container engine's processes
// are started in. Not the server's own working directory: after an out-of-memory kill, conmon
// leaves an "oom" file in the folder it was started from, which would otherwise be whatever
// folder the MCP client launched the server in.
class EngineWorkingDirectory final
{
public:
    // Created on first use; the system's temporary folder if it cannot be.
    static QString path();
};

} // namespace csm
