#pragma once

#include <QByteArray>

#include <optional>

namespace csm {

// The launcher's exit frame: "exit=N" or "signal=N", then oom=0|1, stdout_dropped=N,
// stderr_dropped=N.
struct LauncherExitStatus
{
    int exitCode = 0; // a signal's death is reported as 128 + signal, as shells do
    int signal = 0;
    bool oomKilled = false;
    qint64 stdoutDropped = 0;
    qint64 stderrDropped = 0;

    static std::optional<LauncherExitStatus> parse(const QByteArray& payload);
};

} // namespace csm
