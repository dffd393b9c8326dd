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
        } else if (key == "elapsed_us") {
            status.elapsedMicroseconds = value;
        } else if (key == "oom") {
            status.oomKilled = value != 0;
        } else if (key == "stdout_dropped") {
            status.stdoutDropped = value;
        } else if (key == "stderr_dropped") {
            status.stderrDropped = value;
        } else if (key == "unenforced" && value <= CSM_LIMIT_ALL) {
            status.unenforcedLimits = int(value);
        } else if (key == "session") {
            status.sessionAlive = value != 0;
        } else if (key == "memory" && value >= 0) {
            status.memoryBytes = value;
        }
        // Unknown keys are ignored: a newer launcher may say more.
    }
    if (!sawOutcome)
        return std::nullopt;
    return status;
}

std::optional<int> LauncherExitStatus::parseUnenforced(const QByteArray& payload)
{
    constexpr QByteArrayView prefix("unenforced=");
    if (!payload.startsWith(prefix))
        return std::nullopt;
    bool ok = false;
    const int limits = payload.mid(prefix.size()).toInt(&ok);
    if (!ok || limits <= 0 || limits > CSM_LIMIT_ALL)
        return std::nullopt;
    return limits;
}

QStringList LauncherExitStatus::limitNames(int limits)
{
    QStringList names;
    if (limits & Memory)
        names << QStringLiteral("memory");
    if (limits & Processes)
        names << QStringLiteral("pids");
    if (limits & Cpu)
        names << QStringLiteral("cpus");
    return names;
}

} // namespace csm
