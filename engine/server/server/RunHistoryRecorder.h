#pragma once

#include "core/Expected.h"
#include "history/HistoryFieldCap.h"
#include "history/HistoryPruner.h"
#include "history/RetentionPolicy.h"
#include "history/RunRecord.h"
#include "sandbox/OutputFile.h"
#include "tools/RunObserver.h"

#include <QHash>
#include <QString>
#include <QTimer>

#include <chrono>
#include <functional>
#include <memory>

namespace csm {

class HistoryStore;

// Keeps every run_*_code call of this server in the shared run history (HistoryStore): a row
// when the call starts (`running`), completed when it ends. Each text of a run (code, stdout,
// stderr, error message) is kept up to a size (HistoryFieldCap), and the history within its
// retention limits (HistoryPruner). A write that fails is logged and only loses that record; the
// call itself never depends on the store. While a run goes on, what it printed so far goes to
// the history too (for the app's live view), and requests to stop it from another process (the
// app's Stop for a headless server, HistoryStore::requestStop) are looked for a few times a
// second; the app's own server is asked directly (stop()). Lives on the server's thread, the
// store's.
class RunHistoryRecorder final : public RunObserver
{
public:
    // Who records: stored with every run, so that markInterrupted can tell servers apart.
    struct Server
    {
        QString instance; // SandboxRunner::instanceId()
        qint64 pid = 0;
        QString hostName;
    };

    struct Config
    {
        RetentionPolicy retention;
        // Most bytes kept of each text of a run; <= 0: no limit.
        qint64 maxFieldBytes = HistoryFieldCap::kDefaultMaxBytes;
        std::chrono::milliseconds pruneInterval = HistoryPruner::kDefaultInterval;
    };

    // Opens the history at `path`, marks the runs of this host's dead servers `interrupted` and
    // applies the retention limits. Fails, saying why, when the store cannot be opened.
    static Expected<std::unique_ptr<RunHistoryRecorder>> open(const QString& path,
                                                              const Config& config, Server server);
    RunHistoryRecorder(std::unique_ptr<HistoryStore> store, Server server, const Config& config);
    ~RunHistoryRecorder() override;
    Q_DISABLE_COPY_MOVE(RunHistoryRecorder)

    qint64 runStarted(const Start& start) override;
    void runEnded(qint64 handle, const ExecutionResult& result) override;
    void runFailed(qint64 handle, const QString& message) override;
    void runPrinted(qint64 handle, const QString& stdoutText, const QString& stderrText) override;
    void watchForStop(qint64 handle, std::function<void()> stop) override;
    // Stops the running run `handle` at once, as asked in this process (the desktop app's Stop
    // for its own server); false when this server runs no such run.
    bool stop(qint64 handle);

    // How often the history is asked whether someone wants a running run stopped.
    static constexpr int kStopPollIntervalMs = 200;

    // How a run's result is recorded: status, outputs (each cut to `maxFieldBytes`), exit code,
    // duration, error message.
    static RunRecord endRecord(const ExecutionResult& result, qint64 maxFieldBytes);
    // How a call's input files are recorded: their copies are in the run's folder of the
    // RunFilesStore at `filesRoot`, under "in/".
    static QList<RunFileRecord> inputRecords(const Start& start, const QString& filesRoot);
    // How a run's output files are recorded: as the client was told about them.
    static QList<RunFileRecord> outputRecords(const QList<OutputFile>& outputs);

    // For the runs that start from now on, and the pruner's next pass.
    void setConfig(const Config& config);
    const Config& config() const { return m_config; }

    HistoryStore& store() { return *m_store; }
    HistoryPruner& pruner() { return *m_pruner; }

private:
    void end(qint64 handle, const RunRecord& finished);
    void takeStopRequests();

    std::unique_ptr<HistoryStore> m_store;
    std::unique_ptr<HistoryPruner> m_pruner;
    Server m_server;
    Config m_config;
    // The running runs that can be stopped, by handle (their id in the store).
    QHash<qint64, std::function<void()>> m_stoppers;
    // The files folder of each running run that has one: measured when the run ends.
    QHash<qint64, QString> m_filesKeys;
    QTimer m_stopPoll;
};

} // namespace csm
