#pragma once

#include "csm/launcher_protocol.h"

#include <QByteArray>
#include <QStringList>

#include <optional>

namespace csm {

// The launcher's exit frame: "exit=N" or "signal=N", then elapsed_us=N, oom=0|1,
// stdout_dropped=N, stderr_dropped=N, unenforced=N; a session's cell adds session=0|1 and
// memory=N.
struct LauncherExitStatus
{
    // The bits of "unenforced=N" (also the payload of the launcher's limits frame): limits the
    // sandbox was given that its cgroup does not show.
    enum Limit
    {
        Memory = CSM_LIMIT_MEMORY,
        Processes = CSM_LIMIT_PIDS,
        Cpu = CSM_LIMIT_CPU,
    };

    int exitCode = 0; // a signal's death is reported as 128 + signal, as shells do
    int signal = 0;
    bool oomKilled = false;
    qint64 stdoutDropped = 0;
    qint64 stderrDropped = 0;
    int unenforcedLimits = 0; // Limit bits
    // How long the program (or cell) ran, from the launcher's started frame to its end, as the
    // launcher measured it. None from a launcher too old to say.
    std::optional<qint64> elapsedMicroseconds;
    // A session's cell: whether its interpreter lives on ("session=1") or died ("session=0").
    std::optional<bool> sessionAlive;
    // A session's cell: the memory its container's cgroup charged after it (page cache included).
    std::optional<qint64> memoryBytes;

    static std::optional<LauncherExitStatus> parse(const QByteArray& payload);
    // "unenforced=N" alone (the launcher's limits frame): the Limit bits, or none if unreadable.
    static std::optional<int> parseUnenforced(const QByteArray& payload);
    // The limits of a Limit bit set, named as the flags name them: "memory", "pids", "cpus".
    static QStringList limitNames(int limits);
};

} // namespace csm
