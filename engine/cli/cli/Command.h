#pragma once

#include "cli/Subcommands.h"

#include <QCommandLineParser>
#include <QList>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <optional>

class QTextStream;

namespace csm {

// One of code-sandbox-mcp's commands (`doctor`, `install-client`, `history list`...), run once.
// It owns what every command repeated: the parser with --help, the help text, the usage errors
// and failures in the commands' words, the exit code and finishing. A command declares its
// options and usage (syntax()) and does its work in run(), in named steps that end with one of
// finish(), fail() or usageError().
//
// Asynchronous, because some commands wait for the engine or the keychain: call start() and wait
// for finished(), which follows exactly once, from the event loop, never from inside a call.
class Command : public QObject
{
    Q_OBJECT

public:
    using ExitCode = Subcommands::ExitCode;
    using enum Subcommands::ExitCode;

    ~Command() override;

    // Chooses the subcommand (for a group), parses the arguments, answers --help, then run()s.
    void start();

Q_SIGNALS:
    void finished(int exitCode);

protected:
    // What --help shows and the parser takes, for the subcommand chosen.
    struct Syntax
    {
        QString usage;       // what follows the command word: "list [--json] [--limit N]"
        QString description; // the help's lines after the usage line
        QList<QCommandLineOption> options; // after --help, in the order the help lists them
        // More positional arguments than this are refused before run() ("unexpected argument");
        // none: run() checks them itself.
        std::optional<qsizetype> maxArguments;
    };

    // `table`: the command this one is a subcommand of ("code-sandbox-mcp history"), which names
    // it in help texts and errors. `word`: its name there ("doctor"); empty for a group, whose
    // first argument chooses one of the table's entries ("list"). `arguments`: what follows the
    // word (or the group's name) on the command line. `out` and `err` must outlive the command.
    Command(const Subcommands& table, QString word, QStringList arguments,
            const QProcessEnvironment& environment, QTextStream& out, QTextStream& err,
            QObject* parent);

    virtual Syntax syntax() const = 0;
    // The work, once the arguments parsed and no help was asked for.
    virtual void run() = 0;

    // "Print JSON instead of a readable text.", for the commands that can.
    static const QCommandLineOption& jsonOption();

    // The chosen subcommand's name, or the command's word.
    const QString& word() const { return m_word; }
    // "code-sandbox-mcp history list", "code-sandbox-mcp doctor": what errors start with.
    QString fullName() const;
    const QCommandLineParser& parser() const { return m_parser; }
    const QStringList& positional() const { return m_positional; }
    const QProcessEnvironment& environment() const { return m_environment; }
    QTextStream& out() const { return m_out; }
    QTextStream& err() const { return m_err; }

    // "<command> <word>: message" and where to find help; finishes with Usage.
    void usageError(const QString& message);
    // "<command> <word>: message"; finishes with Failed.
    void fail(const QString& message);
    // Flushes both streams; finished(exitCode) follows from the event loop.
    void finish(int exitCode);

private:
    // Parses the arguments for syntax(); false when that answered the command (its help, a usage
    // error) and finished it.
    bool parse();

    const Subcommands& m_table;
    QString m_word;
    QStringList m_arguments;
    QProcessEnvironment m_environment;
    QTextStream& m_out;
    QTextStream& m_err;
    QCommandLineParser m_parser;
    QStringList m_positional;
    bool m_started = false;
    bool m_finishing = false;
};

} // namespace csm
