#pragma once

#include "egress/EgressConnection.h"
#include "sandbox/OutputFile.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace csm {

// How one sandbox run ended, with its raw output.
struct ExecutionResult
{
    enum class Outcome
    {
        Exited,      // the program ran and exited (with any code, or died of a signal)
        TimedOut,    // killed at its deadline
        Cancelled,   // killed on the client's request or at shutdown
        EngineError, // the program never ran: engine missing, image missing, daemon down...
        // The program never ran: its timeout passed while it waited for a free sandbox.
        TimedOutWaiting,
    };

    Outcome outcome = Outcome::Exited;
    int exitCode = -1;
    qint64 durationMs = 0;
    QByteArray stdoutBytes;
    QByteArray stderrBytes;
    bool stdoutTruncated = false;
    bool stderrTruncated = false;
    bool oomKilled = false; // the kernel killed the program at the memory limit
    // Cancelled by a person (the desktop app's Stop), not by the client: the client still gets
    // a result.
    bool stoppedByUser = false;
    // Limits the engine ignored ("memory", "pids", "cpus"): the program ran because the policy
    // allows that (--allow-unlimited), or did not run at all (EngineError).
    QStringList unenforcedLimits;
    // What the engine warned about the sandbox while running it (e.g. that it ignores limits);
    // not what it says about its own set-up (ContainerRuntime::setUpNotice).
    QStringList engineWarnings;
    // For EngineError and TimedOutWaiting: what went wrong and how to fix it, for a person or a
    // model to read.
    QString engineError;
    // A session's cell: what became of the session, for the model to read ("interrupted at the
    // timeout; the session keeps its state"); empty otherwise.
    QString sessionNote;
    // A session's cell: its place in the session (1, 2, ...); 0 when the call did not run as one.
    int sessionCell = 0;
    // What the program left in its output folder, in the order the launcher sent it: returned
    // files and skipped ones (with their reason).
    QList<OutputFile> outputFiles;
    // Egress proxy mode: the connections the program made (or tried), in the order they ended;
    // at most SandboxRun::kMaxConnectionRecords.
    QList<EgressConnection> connections;
    int connectionsNotListed = 0; // beyond that cap

    bool timedOut() const { return outcome == Outcome::TimedOut; }
    bool truncated() const { return stdoutTruncated || stderrTruncated; }
};

} // namespace csm
