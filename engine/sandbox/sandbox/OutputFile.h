#pragma once

#include <QString>

namespace csm {

// A file a program left in the sandbox's output folder (/sandbox/out), as the launcher carried
// it back after the run.
struct OutputFile
{
    // Relative to the output folder, as the program named it: invalid UTF-8 is replaced and
    // control characters are escaped, so it is safe to show and to log.
    QString path;
    qint64 sizeBytes = 0;
    // From the file's first bytes, not its name: "image/png", "text/csv"... or
    // "application/octet-stream".
    QString mimeType;
    // Where its bytes are on the host (in the run's folder under the data folder); empty when
    // they were not kept (see skipReason).
    QString storedPath;
    // Why it was not returned, for a person or a model to read ("a symbolic link: not followed",
    // "over the 32 MiB total"); empty for a file that came back.
    QString skipReason;

    bool isReturned() const { return skipReason.isEmpty(); }
};

} // namespace csm
