#pragma once

#include <QProcessEnvironment>
#include <QStringList>

class QTextStream;

namespace csm {

// `code-sandbox-mcp history ...`: the run history for people without the desktop app.
//   list [--json] [--limit N]          newest first, as a table or JSON
//   show ID [--json]                   one run, every field
//   export --format json|csv [FILE]    every run, to FILE or stdout
//   prune                              applies the retention limits (count, age, size), says how
//                                      many runs went
// Each takes --data-dir DIR (else $CODE_SANDBOX_DATA_DIR, else the default folder) and --help.
class HistoryCommand final
{
public:
    enum ExitCode
    {
        Ok = 0,
        Failed = 1, // no such run, or the history cannot be read or written
        Usage = 2,
    };

    // `arguments`: what follows `history` on the command line. `out` gets the results, `err`
    // the errors.
    static int run(const QStringList& arguments, const QProcessEnvironment& environment,
                   QTextStream& out, QTextStream& err);
};

} // namespace csm
