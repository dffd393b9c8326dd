#pragma once

#include "core/Expected.h"
#include "history/RunRecord.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace csm {

// A session's cells, as the history kept them, as a Jupyter notebook or as a script.
//
// `cells` are the session's runs in cell order, read in full (code, outputs and files); cell N is
// the N-th of them. The export tells what happened, not what should have:
//
// Notebook (nbformat 4.5, cell ids "header" and "cell-N"): a markdown cell names the session, its
// client and when it ran; then one code cell per run, its `execution_count` N, its outputs in
// this order: stdout (a "stream", with a line saying so when the sandbox truncated it), stderr
// (likewise), the output files (PNG, JPEG and GIF as base64 "display_data", SVG as text, each with
// a text/plain fallback; other files, skipped files and images whose copy in the history is gone
// listed in one text/plain "display_data"), and last, for a cell that did not succeed (a non-zero
// exit code, or a status other than ok), an "error" output whose traceback is one line saying how
// it ended and the engine's error message. stdout and stderr are kept apart, not interleaved: the
// history has them apart. A cell that never ran (refused, or the engine failed before the program
// started: no exit code, status error or engine_error) keeps its place and number, with a null
// `execution_count` and only the error output. Each cell's metadata has "code_sandbox": its run
// id, status, exit code, times and input files.
//
// Script: a header comment (session, language, client, when), then each cell's code after a
// `# %% [cell N]` line (`// %% [cell N]` for JavaScript). A cell that failed begins with a comment
// saying how. The code of a cell that never ran, and of a Python cell that did not compile (its
// stderr ends with a SyntaxError), is commented out: the script runs what the session ran, and
// one such cell does not stop all the others from compiling.
//
// The language is "python" or "javascript" (anything but "javascript" is exported as Python).
class InterpreterSessionExporter final
{
public:
    struct Session
    {
        QString name;     // the session's name, as the model gave it
        QString language; // "python" or "javascript"; empty: the first cell's
    };

    static QJsonObject toNotebook(const QList<RunRecord>& cells, const Session& session);
    static QString toScript(const QList<RunRecord>& cells, const Session& session);

    // Write the notebook (JSON, UTF-8) or the script (UTF-8) to `path`, replacing it atomically
    // and privately (owner-only, like the history: it holds code and outputs). Fail, naming the
    // file and the reason, when it cannot be written; an existing file is then left as it was.
    static Expected<void> writeNotebook(const QString& path, const QList<RunRecord>& cells,
                                        const Session& session);
    static Expected<void> writeScript(const QString& path, const QList<RunRecord>& cells,
                                      const Session& session);
};

} // namespace csm
