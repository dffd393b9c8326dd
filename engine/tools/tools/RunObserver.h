#pragma once

#include "mcp/CallContext.h"
#include "sandbox/InputFile.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>

namespace csm {

struct ExecutionResult;

// Told about every run_*_code call as it starts and ends, to keep a record of it (the run
// history). The call path never depends on it: without an observer a call runs the same, and an
// observer that fails only loses its record. Called on the tool's thread, never re-entrantly.
// What it gets (code, outputs, messages) is already redacted: no secret value reaches it.
class RunObserver
{
public:
    struct Start
    {
        CallContext context;
        QString language; // LanguageTraits::id
        QString image;
        QString code;
        QJsonObject limits; // memory_bytes, cpus, pids_limit, tmpfs_bytes, network, timeout_ms...
        // The run's folder in the data folder (RunFilesStore); empty when it has no files.
        QString filesKey;
        // The call's `files`; their copies are in the run's folder ("in/PATH").
        QList<InputFile> inputFiles;
        // A call with `session`: the name, and the key of the session's interpreter when the
        // call got one (empty when it was refused before).
        QString sessionName;
        QString sessionKey;
    };

    virtual ~RunObserver() = default;

    // A call started. Returns the handle its end is reported with; 0 means "not recorded", and
    // nothing more is reported for it.
    virtual qint64 runStarted(const Start& start) = 0;
    // The call's run ended, in any way (Cancelled included), with the result the client got
    // (its outputFiles included).
    virtual void runEnded(qint64 handle, const ExecutionResult& result) = 0;
    // The call could not run at all (invalid arguments): `message` is what the client was told.
    virtual void runFailed(qint64 handle, const QString& message) = 0;

    // While the call runs, a few times a second at most while it prints: what it has printed
    // so far (each stream's latest part, LiveOutputTail), for a live view.
    virtual void runPrinted(qint64 handle, const QString& stdoutText, const QString& stderrText)
    {
        Q_UNUSED(handle);
        Q_UNUSED(stdoutText);
        Q_UNUSED(stderrText);
    }
    // From now until its end is reported, the observer calls `stop` when someone outside the
    // call (a person in the desktop app) asks to stop it.
    virtual void watchForStop(qint64 handle, std::function<void()> stop)
    {
        Q_UNUSED(handle);
        Q_UNUSED(stop);
    }
};

} // namespace csm
