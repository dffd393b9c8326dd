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
    // A remote engine's named volume holding a copy of the launcher and the profile, which its
    // containers mount instead of the host's files: no host path reaches them there
    // (SandboxFilesVolume). Empty: the host's files are bind-mounted. (Where the engine itself
    // opens the profile, seccompProfile is then the copy's path on the engine's host.)
    QString volume;

    // The profile's variant for gVisor, beside it (csm-seccomp-gvisor.json for csm-seccomp.json).
    // gVisor applies a profile in its own kernel but fails every refused call with EPERM, whatever
    // errno the profile names; the standard profile's ENOSYS for clone3 (so that the C library
    // falls back to clone, whose flags the profile checks) would then stop every new thread.
    // The variant lets clone3 through to gVisor's kernel, which answers ENOSYS itself.
    QString gvisorSeccompProfile() const
    {
        QString path = seccompProfile;
        if (path.endsWith(QLatin1String(".json")))
            path.chop(5);
        return path + QStringLiteral("-gvisor.json");
    }

    // Both were found: a sandbox can be started.
    bool isComplete() const { return !launcher.isEmpty() && !seccompProfile.isEmpty(); }
};

} // namespace csm
