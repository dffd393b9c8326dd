#pragma once

#include "history/RunStatus.h"

#include <QDateTime>
#include <QString>

#include <optional>

namespace csm {

// A slice of the history another page asks the Runs page to show (a bar of the activity
// charts): the runs started in [from, before), of one client or with one status when given.
struct RunsSelection
{
    QDateTime from;
    QDateTime before;
    std::optional<QString> client;
    std::optional<RunStatus> status;
};

} // namespace csm
