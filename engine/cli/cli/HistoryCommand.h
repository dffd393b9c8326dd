#pragma once

#include "cli/Command.h"
#include "history/HistoryOptions.h"

#include <memory>

namespace csm {

class HistoryStore;

// `code-sandbox-mcp history ...`: the run history for people without the desktop app.
//   list [--json] [--limit N]          newest first, as a table or JSON
//   show ID [--json]                   one run, every field
//   export --format json|csv [FILE]    every run, to FILE or stdout
//   prune                              applies the retention limits (count, age, size), says how
//                                      many runs went
// Each takes --data-dir DIR (else $CODE_SANDBOX_DATA_DIR, else the default folder) and --help.
// Exits with Failed when there is no such run, or the history cannot be read or written.
class HistoryCommand final : public Command
{
    Q_OBJECT

public:
    // `arguments`: what follows `history` on the command line. `out` gets the results, `err`
    // the errors.
    HistoryCommand(QStringList arguments, const QProcessEnvironment& environment, QTextStream& out,
                   QTextStream& err, QObject* parent = nullptr);
    ~HistoryCommand() override;

private:
    Syntax syntax() const override;
    void run() override;

    void list();
    void show();
    void exportRuns();
    void prune();

    bool historyExists() const;
    // The history, opened; nothing, having failed the command, when it cannot be.
    HistoryStore* openHistory();
    // Fails the command with the history's last error: "cannot <what> the run history ...".
    void historyFailed(const char* what, const QString& reason);

    const HistoryOptions m_historyOptions;
    const QCommandLineOption m_limit;
    const QCommandLineOption m_format;
    QString m_dataDir;
    QString m_historyPath;
    std::unique_ptr<HistoryStore> m_history;
};

} // namespace csm
