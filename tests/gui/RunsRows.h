#pragma once

#include "ui/models/RunsModel.h"

// Rows of the Runs page's model, found as a person finds them: by what they show.

// The first row whose status reads `status`, or -1.
inline int rowWithStatus(const csm::RunsModel& model, const QString& status)
{
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.index(row, csm::RunsModel::Status).data().toString() == status)
            return row;
    }
    return -1;
}

// The row of run `id`, or -1.
inline int rowOf(const csm::RunsModel& model, qint64 id)
{
    for (int row = 0; row < model.rowCount(); ++row) {
        if (model.runId(row) == id)
            return row;
    }
    return -1;
}
