#pragma once

#include <QString>

namespace csm {

// A file that went into a run (the call's `files` argument) or came out of it (the program's
// output folder), as the history keeps it.
struct RunFileRecord
{
    enum class Direction
    {
        Input,
        Output,
    };

    Direction direction = Direction::Output;
    // Relative to the working directory (inputs) or the output folder (outputs), safe to show.
    QString path;
    qint64 sizeBytes = 0;
    QString mimeType;
    // The copy kept on the host, in the run's folder of the data folder (RunFilesStore); empty
    // when none was kept.
    QString storedPath;
    // Why an output was not returned (a symbolic link, over a cap...); empty otherwise.
    QString skipReason;

    friend bool operator==(const RunFileRecord&, const RunFileRecord&) = default;
};

} // namespace csm
