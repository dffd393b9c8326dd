#include "sandbox/LauncherExitStatus.h"

#include <QList>

namespace csm {

std::optional<LauncherExitStatus> LauncherExitStatus::parse(const QByteArray& payload)
{
    LauncherExitStatus status;
    bool sawOutcome = false;
    for (const QByteArray& field : payload.split(' ')) {
        const qsizetype equals = field.indexOf('=');
        if (equals <= 0)
            return std::nullopt;
        const QByteArray key = field.left(equals);
        bool ok = false;
        const qint64 value = field.mid(equals + 1).toLongLong(&ok);
        if (!ok || value < 0)
            return std::nullopt;
        if (key == "exit" && value <= 255) {
            status.exitCode = int(value);
            sawOutcome = true;
        } else if (key == "signal" && value > 0 && value < 128) {
            status.signal = int(value);
            status.exitCode = 128 + int(value);
            sawOutcome = true;
        } else if (key == "oom") {
            status.oomKilled = value != 0;
        } else if (key == "stdout_dropped") {
            status.stdoutDropped = value;
        } else if (key == "stderr_dropped") {
            status.stderrDropped = value;
        }
        // Unknown keys are ignored: a newer launcher may say more.
    }
    if (!sawOutcome)
        return std::nullopt;
    return status;
}

} // namespace csm
