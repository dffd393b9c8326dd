#pragma once

#include "history/RunStatus.h"

#include <QColor>
#include <QString>

class QPalette;

namespace csm {

// How a run's status shows to a person: a label in plain words ("Out of memory", not "oom"),
// a sentence that explains it, and a colour that reads on a light or a dark palette.
class RunStatusLook final
{
public:
    static QString label(RunStatus status);
    static QString explanation(RunStatus status);
    // Green, red, amber... lightened on a dark palette, darkened on a light one; a cancelled or
    // interrupted run takes the palette's own muted text colour.
    static QColor colour(RunStatus status, const QPalette& palette);
    // Whether the run ended as it should not have: the ones a person looks at first.
    static bool isFailure(RunStatus status);
};

} // namespace csm
