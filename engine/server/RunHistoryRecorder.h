#pragma once

#include "history/RetentionPolicy.h"
#include "history/RunRecord.h"
#include "tools/RunObserver.h"

#include <QString>

#include <memory>

namespace csm {

class HistoryStore;

// Keeps every run_*_code call of this server in the shared run history (HistoryStore): a row
// when the call starts (`running`), completed when it ends. A write that fails is logged and
// only loses that record; the call itself never depends on the store. Lives on the server's
// thread, the store's.
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

    // Opens the history at `path`, marks the runs of this host's dead servers `interrupted` and
    // applies `retention`. Null, with `error` saying why, when the store cannot be opened.
    static std::unique_ptr<RunHistoryRecorder>
    open(const QString& path, const RetentionPolicy& retention, Server server, QString* error);
    RunHistoryRecorder(std::unique_ptr<HistoryStore> store, Server server);
    ~RunHistoryRecorder() override;
    Q_DISABLE_COPY_MOVE(RunHistoryRecorder)

    qint64 runStarted(const Start& start) override;
    void runEnded(qint64 handle, const ExecutionResult& result) override;
    void runFailed(qint64 handle, const QString& message) override;

    // How a run's result is recorded: status, outputs, exit code, duration, error message.
    static RunRecord endRecord(const ExecutionResult& result);

    HistoryStore& store() { return *m_store; }

private:
    void end(qint64 handle, const RunRecord& finished);

    std::unique_ptr<HistoryStore> m_store;
    Server m_server;
};

} // namespace csm
