#pragma once

#include <QString>

namespace csm {

struct RunRecord;

// One line that says what a run did, for the runs list: why it failed where a line says it (the
// last line of Stderr for a program's error, which names a Python or Node exception; the
// engine's or server's message for the rest), else the first line of its code that is not
// blank or a comment.
class RunSummary final
{
public:
    // The characters of code and Stderr a summary needs: the start of the one, the end of the
    // other (RunsModel reads no more).
    static constexpr int kReadChars = 240;
    static constexpr int kMaxChars = 160;

    static QString of(const RunRecord& run);
    // The line that says why the run failed, when there is one; empty otherwise.
    static QString problem(const RunRecord& run);
    // The first line of `code` that is not blank or only a comment; the first line otherwise.
    static QString firstCodeLine(const QString& code);
    // The last line of `text` that is not blank.
    static QString lastLine(const QString& text);
};

} // namespace csm
