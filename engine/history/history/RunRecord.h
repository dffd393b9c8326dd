#pragma once

#include "history/RunConnectionRecord.h"
#include "history/RunFileRecord.h"
#include "history/RunStatus.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace csm {

// One tool call as the history database keeps it.
struct RunRecord
{
    qint64 id = 0; // assigned by HistoryStore::recordStart; never reused, grows with time
    // Bumped on every insert and update of this run (see HistoryStore::changedSince).
    qint64 changeSeq = 0;

    // Who ran it.
    QString serverInstance; // unique per server process (a UUID), so a reused pid is told apart
    qint64 serverPid = 0;
    QString hostName;
    QString transport; // "stdio", "http" or "app"
    QString sessionId;
    QString clientName;
    QString clientVersion;
    // A cell of a persistent session: the name the model gave it, the key of that session's
    // interpreter (unique: a name used again later is another session), and the cell's place in
    // it (1, 2, ...; 0 when the call never ran as a cell). All empty or 0 for one-shot calls.
    QString sessionName;
    QString sessionKey;
    int cellNumber = 0;

    // What ran.
    QString tool;
    QString language; // LanguageTraits::id: "python", "javascript"
    QString image;
    QString code;
    // The policy it ran under: memory, cpus, timeout_ms, network...
    QJsonObject limits;

    // How it ended.
    QString stdoutText;
    QString stderrText;
    bool stdoutTruncated = false;
    bool stderrTruncated = false;
    std::optional<int> exitCode; // none while running, or when the program never ran
    qint64 durationMs = 0;
    RunStatus status = RunStatus::Running;
    QDateTime startedAt;
    QDateTime endedAt;    // null while running
    QString errorMessage; // the engine's error text, for a person or a model to read
    // Limits the engine accepted but did not enforce ("memory", "pids", "cpus"); recordEnd()
    // adds them to `limits` as "unenforced".
    QStringList unenforcedLimits;

    // Files in and out. filesKey names the run's folder in the data folder (RunFilesStore) and
    // its resources (code-sandbox://runs/KEY/...); empty for a run that had none.
    QString filesKey;
    QList<RunFileRecord> files;
    // How many output files came back (skipped ones not counted): kept with the run, so that a
    // list shows it without loading `files` (which only get() does).
    int outputFileCount = 0;

    // The connections its program made through the egress proxy, in the order they ended
    // (recordEnd() stores them; only get() reads them).
    QList<RunConnectionRecord> connections;
    // Connections past the ones listed (the record keeps a run's first
    // SandboxRun::kMaxConnectionRecords): counted, not described.
    int connectionsNotListed = 0;
};

} // namespace csm
