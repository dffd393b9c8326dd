#pragma once

#include <QByteArray>
#include <QString>

namespace csm {

// A file the caller hands to a program (the `files` argument of run_*_code), placed under the
// sandbox's working directory before the program starts.
struct InputFile
{
    // Relative to the working directory, already checked (InputFileList): no "..", not
    // absolute, no duplicates.
    QString path;
    QByteArray content;
};

} // namespace csm
