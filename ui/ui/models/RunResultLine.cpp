#include "ui/models/RunResultLine.h"

#include "core/ByteSize.h"
#include "history/RunRecord.h"
#include "ui/models/RunSummary.h"
#include "ui/Plural.h"

#include <QObject>

#include <algorithm>

namespace csm {

QString RunResultLine::duration(qint64 ms)
{
    // Under a second in milliseconds, as the runs list says it; whole seconds as they are (a
    // limit of 30 s); a run's time to a tenth.
    if (ms < 1000)
        return QObject::tr("%1 ms").arg(ms);
    if (ms < 60'000 && ms % 1000 == 0)
        return QObject::tr("%1 s").arg(ms / 1000);
    if (ms < 60'000)
        return QObject::tr("%1 s").arg(QString::number(double(ms) / 1000.0, 'f', 1));
    const qint64 seconds = ms / 1000;
    return QObject::tr("%1 min %2 s").arg(seconds / 60).arg(seconds % 60);
}

QString RunResultLine::of(const RunRecord& run, const QDateTime& now)
{
    const QString took = duration(run.durationMs);
    const QString message = run.errorMessage.section(u'\n', 0, 0).trimmed();
    const auto withMessage = [&message](const QString& sentence) {
        return message.isEmpty() ? sentence : sentence + QStringLiteral(": ") + message;
    };
    switch (run.status) {
    case RunStatus::Running: {
        // Since the call came in: its wait for a sandbox included, as its client sees it.
        const qint64 elapsed =
            run.startedAt.isValid() ? std::max<qint64>(run.startedAt.msecsTo(now), 0) : 0;
        return QObject::tr("Running for %1").arg(duration(elapsed));
    }
    case RunStatus::Ok:
        if (run.outputFileCount > 0) {
            return QObject::tr("Finished in %1, with %2 back")
                .arg(took, Plural::of(run.outputFileCount, "file", "files"));
        }
        return QObject::tr("Finished in %1").arg(took);
    case RunStatus::Error: {
        const QString error = RunSummary::lastLine(run.stderrText);
        QString sentence =
            run.exitCode
                ? QObject::tr("Failed with exit code %1 after %2").arg(*run.exitCode).arg(took)
                : QObject::tr("Failed after %1").arg(took);
        if (!error.isEmpty())
            return sentence + QStringLiteral(": ") + error;
        return withMessage(sentence);
    }
    case RunStatus::Oom: {
        const qint64 limit = run.limits.value(QLatin1String("memory_bytes")).toInteger();
        return limit > 0 ? QObject::tr("Ran out of memory (%1) after %2")
                               .arg(ByteSize::forPeople(limit), took)
                         : QObject::tr("Ran out of memory after %1").arg(took);
    }
    case RunStatus::Timeout: {
        // Killed at its limit; or never ran, having waited its whole time for a sandbox.
        if (!message.isEmpty())
            return message;
        const qint64 limit = run.limits.value(QLatin1String("timeout_ms")).toInteger();
        return limit > 0 ? QObject::tr("Timed out at its %1 limit").arg(duration(limit))
                         : QObject::tr("Timed out after %1").arg(took);
    }
    case RunStatus::Cancelled:
        return withMessage(QObject::tr("Stopped after %1").arg(took));
    case RunStatus::EngineError:
        return withMessage(QObject::tr("Did not start"));
    case RunStatus::Interrupted:
        return QObject::tr("Interrupted after %1: its server ended before the run did").arg(took);
    }
    return {};
}

QString RunResultLine::network(const RunRecord& run)
{
    QStringList reasons;
    int refused = 0;
    for (const RunConnectionRecord& connection : run.connections) {
        if (connection.allowed)
            continue;
        ++refused;
        // "169.254.169.254:80: 169.254.169.254 is link-local": the words after the target.
        const QString why = connection.reason.section(QStringLiteral(": "), 1).trimmed();
        const QString reason = why.isEmpty() ? connection.reason : why;
        if (!reason.isEmpty() && !reasons.contains(reason))
            reasons.append(reason);
    }
    if (refused == 0)
        return {};
    const QString count = Plural::of(refused, "connection refused", "connections refused");
    return reasons.isEmpty() ? count : count + QStringLiteral(": ") + reasons.constFirst();
}

} // namespace csm
