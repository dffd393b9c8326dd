#include "ui/models/RunStatusLook.h"

#include "ui/PaletteTone.h"

#include <QObject>
#include <QPalette>

namespace csm {

QString RunStatusLook::label(RunStatus status)
{
    switch (status) {
    case RunStatus::Running:
        return QObject::tr("Running");
    case RunStatus::Ok:
        return QObject::tr("OK");
    case RunStatus::Error:
        return QObject::tr("Error");
    case RunStatus::Timeout:
        return QObject::tr("Timed out");
    case RunStatus::Cancelled:
        return QObject::tr("Cancelled");
    case RunStatus::Oom:
        return QObject::tr("Out of memory");
    case RunStatus::EngineError:
        return QObject::tr("Did not start");
    case RunStatus::Interrupted:
        return QObject::tr("Interrupted");
    }
    return {};
}

QString RunStatusLook::explanation(RunStatus status)
{
    switch (status) {
    case RunStatus::Running:
        return QObject::tr("The run has not ended yet.");
    case RunStatus::Ok:
        return QObject::tr("The program ran to its end and exited with code 0.");
    case RunStatus::Error:
        return QObject::tr("The program exited with another code, or died of a signal: its "
                           "Stderr says why.");
    case RunStatus::Timeout:
        return QObject::tr("The program was still running at its time limit, and was killed.");
    case RunStatus::Cancelled:
        return QObject::tr("The run was stopped: by its client, by Stop, or as its server shut "
                           "down.");
    case RunStatus::Oom:
        return QObject::tr("The program used all the memory its sandbox may use, and the kernel "
                           "killed it.");
    case RunStatus::EngineError:
        return QObject::tr("The program never ran: the container engine or the image failed. "
                           "The detail says how.");
    case RunStatus::Interrupted:
        return QObject::tr("The server running it ended before the run did.");
    }
    return {};
}

bool RunStatusLook::isFailure(RunStatus status)
{
    return status == RunStatus::Error || status == RunStatus::Timeout || status == RunStatus::Oom ||
           status == RunStatus::EngineError;
}

QColor RunStatusLook::colour(RunStatus status, const QPalette& palette)
{
    const bool dark = PaletteTone::isDark(palette);
    // Each pair: for a light palette, then for a dark one; both keep 4.5:1 against the base.
    const auto pick = [dark](QRgb light, QRgb onDark) {
        return QColor(dark ? onDark : light);
    };
    switch (status) {
    case RunStatus::Running:
        return pick(0x1a5fb4, 0x78aeed);
    case RunStatus::Ok:
        return pick(0x26734d, 0x8ff0a4);
    case RunStatus::Error:
    case RunStatus::Oom:
    case RunStatus::EngineError:
        return pick(0xc01c28, 0xff7b84);
    case RunStatus::Timeout:
        return pick(0x9c5300, 0xf8c35a);
    case RunStatus::Cancelled:
    case RunStatus::Interrupted:
        break;
    }
    return palette.color(QPalette::Disabled, QPalette::Text);
}

} // namespace csm
