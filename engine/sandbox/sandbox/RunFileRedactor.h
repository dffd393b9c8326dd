#pragma once

#include "sandbox/OutputFile.h"

#include <QList>

namespace csm {

class SecretRedactor;

// Keeps secrets' values out of the files of a run: what it made, and the copies of what the call
// sent. The copy on disk is the history's as much as
// the client's (resources/read serves it, the desktop app shows it), and the history never holds
// a secret's value: a text file that holds one is rewritten with each value replaced by its
// marker, as stdout is; a binary file (an image, an archive) cannot be rewritten without breaking
// it, so it is deleted and reported as not returned. Files are searched in chunks, so that a
// large file without a secret is never held in memory; only a text file that holds one is read
// whole to be rewritten (within the output folder's size cap).
class RunFileRedactor final
{
public:
    static constexpr qint64 kChunkBytes = 1 << 20;

    // Updates `files` (sizes, what was not kept and why) to match what is on disk afterwards.
    static void redact(QList<OutputFile>& files, const SecretRedactor& redactor);
    // The same for every file under `folder` (the kept copies of a run's input files).
    static void redactFolder(const QString& folder, const SecretRedactor& redactor);

private:
    enum class Outcome
    {
        Clean,
        Rewritten, // a text file: the values replaced by markers
        Removed,   // any other kind
    };
    static Outcome redactFile(const QString& path, const QString& mimeType,
                              const SecretRedactor& redactor, qint64* size);
    static bool holdsAValue(const QString& path, const SecretRedactor& redactor);
    // Whether the rewrite succeeded; the new size in `size`.
    static bool rewriteRedacted(const QString& path, const SecretRedactor& redactor, qint64* size);
};

} // namespace csm
