#pragma once

#include <QString>

namespace csm {

// The host files every sandbox is started with, installed together (SandboxFilesLocator).
struct SandboxFiles
{
    // csm-launch, mounted read-only as the container's PID 1.
    QString launcher;
    // The seccomp profile given to the engine (--security-opt seccomp=): no new namespaces,
    // mounts, keyrings, eBPF, ptrace...
    QString seccompProfile;

    // Both were found: a sandbox can be started.
    bool isComplete() const { return !launcher.isEmpty() && !seccompProfile.isEmpty(); }
};

} // namespace csm
