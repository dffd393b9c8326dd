#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringDecoder>
#include <QStringList>
#include <QTimer>

#include <utility>

class QProcess;

namespace csm {

// One long engine command a person started (build, pull, remove, test an image), run as an
// asynchronous job that a page watches: its output comes a line at a time (each state of a
// progress bar that redraws its line with \r is a line), Cancel asks it to stop and kills it
// after a grace, and its end says how it ended and after how long. It runs in a session of its
// own, with no controlling terminal: a `sudo` inside a build fails at once instead of prompting
// in whatever terminal started the app.
class EngineJob final : public QObject
{
    Q_OBJECT

public:
    // How long a cancelled command has to stop after SIGTERM before it is killed.
    static constexpr int kCancelGraceMs = 5'000;

    struct Command
    {
        Command(QString commandProgram, QStringList commandArguments)
            : program(std::move(commandProgram))
            , arguments(std::move(commandArguments))
        {}

        QString program;
        QStringList arguments;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        // Written to its stdin, which is then closed.
        QByteArray input;
        // Its stderr is kept apart (errors()) instead of joining the lines: for a command whose
        // own output is all on stdout, so that the engine's words on stderr can be told apart.
        bool separateErrors = false;
        // Everything it prints is kept (output()): for a short command whose answer is its
        // output, not a build whose progress would all stay in memory.
        bool keepOutput = false;
    };
    enum class Ending
    {
        Running,
        Exited,        // exitCode() says how
        Crashed,       // killed by a signal, the cancel's kill among them
        FailedToStart, // errorString() says why
    };

    EngineJob(Command command, QObject* parent = nullptr);
    // A job still running is asked to stop: a build script may clean up after itself (its
    // mounts, its work folder) in the time the process's own destructor gives it.
    ~EngineJob() override;

    QString program() const { return m_command.program; }
    // The command as a shell user would type it, for a log. A program passed as an argument
    // (Python's `-c` bootstrap) shows as its first line and how many more follow.
    QString commandLine() const;
    void start();
    // Asks the command to stop (SIGTERM), and kills it kCancelGraceMs later; finished() follows.
    void cancel();
    bool isRunning() const { return m_ending == Ending::Running && m_process; }
    bool wasCancelled() const { return m_cancelled; }
    qint64 processId() const;

    // Once finished():
    Ending ending() const { return m_ending; }
    int exitCode() const { return m_exitCode; }
    bool succeeded() const { return m_ending == Ending::Exited && m_exitCode == 0 && !m_cancelled; }
    QString errorString() const { return m_errorString; }
    qint64 elapsedMs() const { return m_elapsedMs; }
    // With keepOutput: everything it printed on stdout (and stderr unless kept apart), as text.
    const QString& output() const { return m_output; }
    // With separateErrors: what it said on stderr (the first 16 KiB).
    const QByteArray& errors() const { return m_errors; }

Q_SIGNALS:
    void lineReceived(const QString& line);
    // The grace after a cancel ran out: the command is killed.
    void killedAfterGrace();
    void finished();

private:
    void onOutput();
    void onEnded(Ending ending, int exitCode);

    Command m_command;
    QProcess* m_process = nullptr;
    QTimer m_killTimer;
    QElapsedTimer m_clock;
    QStringDecoder m_decoder{QStringDecoder::Utf8};
    QString m_partialLine;
    QString m_output;
    QByteArray m_errors;
    QString m_errorString;
    Ending m_ending = Ending::Running;
    int m_exitCode = -1;
    qint64 m_elapsedMs = 0;
    bool m_cancelled = false;
};

} // namespace csm
