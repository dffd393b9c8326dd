#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

class QCommandLineParser;
class QTextStream;

namespace csm {

// A command made of subcommands chosen by the first argument: `code-sandbox-mcp history list`,
// `code-sandbox-mcp secrets set`, and code-sandbox-mcp itself (`history`, `doctor`...). It holds
// what each such command used to repeat: the help words, the check of the subcommand's name,
// the "unknown command" message and the overview listing the subcommands.
class Subcommands final
{
public:
    // The exit codes every command uses.
    enum ExitCode
    {
        Ok = 0,
        Failed = 1,
        Usage = 2,
    };

    // What follows the subcommand's name on the command line, to its exit code.
    using Run = std::function<int(const QStringList& arguments)>;

    struct Entry
    {
        QString name;     // "list"
        QString synopsis; // "list [--json] [--limit N]", as the overview shows it
        QString summary;  // what it does, in a few words
        Run run;          // dispatch() calls it; unset when the owner runs it itself
    };

    // `command`: the words that come before the subcommand ("code-sandbox-mcp history").
    // `description`: the overview's lines after the usage line; `footer`: its last lines.
    Subcommands(QString command, QString description, QList<Entry> entries, QString footer = {});

    const QString& command() const { return m_command; }
    const Entry* find(const QString& name) const;

    // "Usage: <command> <command> [options]", the description, every subcommand, the footer.
    QString overview() const;
    // "Commands:" and one line per subcommand: for a help text that has its own usage line.
    QString commandList() const;

    // Nothing when `arguments` starts with a subcommand's name. Otherwise the command answers
    // itself, and this is its exit code: the overview on `out` for a help word (Ok), on `err`
    // when nothing is given (Usage), an "unknown command" message for anything else (Usage).
    std::optional<int> answerWithoutSubcommand(const QStringList& arguments, QTextStream& out,
                                               QTextStream& err) const;
    // Runs the entry `arguments` starts with (with what follows it), when there is one with a
    // Run; nothing otherwise, having run nothing.
    std::optional<int> dispatch(const QStringList& arguments) const;

    // -h, --help, help.
    static bool isHelpWord(const QString& argument);
    // The help of one subcommand: "Usage: <command> <usage>", the description, then the
    // parser's options.
    QString help(const QCommandLineParser& parser, const QString& usage,
                 const QString& description) const;
    // "<command> <subcommand>: message" and where to find help; returns Usage.
    int usageError(QTextStream& err, const QString& subcommand, const QString& message) const;

private:
    QString m_command;
    QString m_description;
    QList<Entry> m_entries;
    QString m_footer;
};

} // namespace csm
