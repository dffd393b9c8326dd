#include "server/RunHistoryRecorder.h"

#include "core/Logging.h"
#include "core/RunFilesStore.h"
#include "history/HistoryStore.h"
#include "platform/ProcessProbe.h"
#include "sandbox/ExecutionResult.h"

#include <QDir>
#include <QMimeDatabase>

#include <utility>

namespace csm {

namespace {

// The end of a running run's output within the history's field size: its latest lines are what
// a live view is for (HistoryFieldCap keeps the beginning, which the run's end records).
QString latestWithin(const QString& text, qint64 maxBytes)
{
    if (maxBytes <= 0)
        return text;
    QByteArray utf8 = text.toUtf8();
    if (utf8.size() <= maxBytes)
        return text;
    utf8 = utf8.right(maxBytes);
    qsizetype start = 0;
    while (start < utf8.size() && (static_cast<unsigned char>(utf8.at(start)) & 0xC0) == 0x80)
        ++start; // not in the middle of a character
    return QString::fromUtf8(utf8.mid(start));
}

} // namespace

Expected<std::unique_ptr<RunHistoryRecorder>>
RunHistoryRecorder::open(const QString& path, const Config& config, Server server)
{
    Expected<std::unique_ptr<HistoryStore>> opened = HistoryStore::open(path);
    if (!opened)
        return Unexpected(opened.error());
    std::unique_ptr<HistoryStore> store = *std::move(opened);
    const Expected<int> interrupted =
        store->ledger().markInterrupted(server.hostName, ProcessProbe::isCodeSandboxProcessAlive);
    if (!interrupted)
        qCWarning(lcHistory).noquote()
            << "cannot mark the runs of ended servers:" << interrupted.error();
    qCInfo(lcHistory).noquote() << "recording runs in" << QDir::toNativeSeparators(store->path());
    auto recorder =
        std::make_unique<RunHistoryRecorder>(std::move(store), std::move(server), config);
    recorder->pruner().pruneNow();
    return recorder;
}

RunHistoryRecorder::RunHistoryRecorder(std::unique_ptr<HistoryStore> store, Server server,
                                       const Config& config)
    : m_store(std::move(store))
    , m_pruner(std::make_unique<HistoryPruner>(*m_store, config.retention, config.pruneInterval))
    , m_server(std::move(server))
    , m_config(config)
{
    m_stopPoll.setInterval(kStopPollIntervalMs);
    QObject::connect(&m_stopPoll, &QTimer::timeout, [this] { takeStopRequests(); });
}

RunHistoryRecorder::~RunHistoryRecorder() = default;

qint64 RunHistoryRecorder::runStarted(const Start& start)
{
    RunRecord run;
    run.serverInstance = m_server.instance;
    run.serverPid = m_server.pid;
    run.hostName = m_server.hostName;
    run.transport = start.context.transport;
    run.sessionId = start.context.sessionId;
    run.clientName = start.context.clientName;
    run.clientVersion = start.context.clientVersion;
    run.sessionName = start.sessionName;
    run.sessionKey = start.sessionKey;
    run.tool = start.context.tool;
    run.language = start.language;
    run.image = start.image;
    run.code = HistoryFieldCap::apply(start.code, m_config.maxFieldBytes);
    run.limits = start.limits;
    run.filesKey = start.filesKey;
    run.files = inputRecords(start, m_store->filesRoot());
    const Expected<qint64> id = m_store->ledger().recordStart(run);
    if (!id) {
        qCWarning(lcHistory).noquote()
            << "a run could not be recorded in the history:" << id.error();
        return 0;
    }
    if (!start.filesKey.isEmpty())
        m_filesKeys.insert(*id, start.filesKey);
    return *id;
}

QList<RunFileRecord> RunHistoryRecorder::inputRecords(const Start& start, const QString& filesRoot)
{
    QList<RunFileRecord> records;
    const QString runFolder = RunFilesStore(filesRoot).folder(start.filesKey);
    const QMimeDatabase mimeTypes;
    for (const InputFile& input : start.inputFiles) {
        RunFileRecord record;
        record.direction = RunFileRecord::Direction::Input;
        record.path = input.path;
        record.sizeBytes = input.content.size();
        // From the bytes, as for outputs: a name says what the caller hoped, not what it is.
        record.mimeType = mimeTypes.mimeTypeForData(input.content).name();
        if (!runFolder.isEmpty())
            record.storedPath = runFolder + QStringLiteral("/in/") + input.path;
        records.append(record);
    }
    return records;
}

QList<RunFileRecord> RunHistoryRecorder::outputRecords(const QList<OutputFile>& outputs)
{
    QList<RunFileRecord> records;
    records.reserve(outputs.size());
    for (const OutputFile& output : outputs) {
        RunFileRecord record;
        record.direction = RunFileRecord::Direction::Output;
        record.path = output.path;
        record.sizeBytes = output.sizeBytes;
        record.mimeType = output.mimeType;
        record.storedPath = output.storedPath;
        record.skipReason = output.skipReason;
        records.append(record);
    }
    return records;
}

RunRecord RunHistoryRecorder::endRecord(const ExecutionResult& result, qint64 maxFieldBytes)
{
    RunRecord run;
    run.stdoutText = HistoryFieldCap::apply(QByteArrayView(result.stdoutBytes), maxFieldBytes);
    run.stderrText = HistoryFieldCap::apply(QByteArrayView(result.stderrBytes), maxFieldBytes);
    run.stdoutTruncated = result.stdoutTruncated;
    run.stderrTruncated = result.stderrTruncated;
    run.durationMs = result.durationMs;
    run.unenforcedLimits = result.unenforcedLimits;
    run.files = outputRecords(result.outputFiles);
    for (const EgressConnection& connection : result.connections) {
        run.connections.append({HistoryFieldCap::apply(connection.host, 1024), connection.port,
                                connection.allowed, HistoryFieldCap::apply(connection.reason, 4096),
                                connection.address, connection.bytesSent, connection.bytesReceived,
                                connection.started, connection.durationMs});
    }
    run.connectionsNotListed = result.connectionsNotListed;
    switch (result.outcome) {
    case ExecutionResult::Outcome::Exited:
        run.exitCode = result.exitCode;
        if (result.oomKilled)
            run.status = RunStatus::Oom;
        else
            run.status = result.exitCode == 0 ? RunStatus::Ok : RunStatus::Error;
        break;
    case ExecutionResult::Outcome::TimedOut:
        run.status = result.oomKilled ? RunStatus::Oom : RunStatus::Timeout;
        break;
    case ExecutionResult::Outcome::TimedOutWaiting:
        run.status = RunStatus::Timeout;
        run.errorMessage = result.engineError;
        break;
    case ExecutionResult::Outcome::Cancelled:
        run.status = RunStatus::Cancelled;
        if (result.stoppedByUser)
            run.errorMessage = QStringLiteral("Stopped from the Code Sandbox app.");
        break;
    case ExecutionResult::Outcome::EngineError:
        run.status = RunStatus::EngineError;
        run.errorMessage = HistoryFieldCap::apply(result.engineError, maxFieldBytes);
        break;
    }
    run.cellNumber = result.sessionCell;
    // What became of the session (interrupted, ended) belongs with the cell that says it.
    if (!result.sessionNote.isEmpty()) {
        const QString note = QStringLiteral("Session: ") + result.sessionNote;
        run.errorMessage =
            run.errorMessage.isEmpty() ? note : run.errorMessage + QLatin1Char('\n') + note;
    }
    return run;
}

void RunHistoryRecorder::runEnded(qint64 handle, const ExecutionResult& result)
{
    end(handle, endRecord(result, m_config.maxFieldBytes));
}

void RunHistoryRecorder::runFailed(qint64 handle, const QString& message)
{
    RunRecord run;
    run.status = RunStatus::Error;
    run.errorMessage = HistoryFieldCap::apply(message, m_config.maxFieldBytes);
    end(handle, run);
}

void RunHistoryRecorder::runPrinted(qint64 handle, const QString& stdoutText,
                                    const QString& stderrText)
{
    if (handle <= 0)
        return;
    const Expected<void> recorded =
        m_store->ledger().recordOutput(handle, latestWithin(stdoutText, m_config.maxFieldBytes),
                                       latestWithin(stderrText, m_config.maxFieldBytes));
    if (!recorded)
        qCDebug(lcHistory).noquote()
            << "the output of a running run was not recorded:" << recorded.error();
}

void RunHistoryRecorder::watchForStop(qint64 handle, std::function<void()> stop)
{
    if (handle <= 0)
        return;
    m_stoppers.insert(handle, std::move(stop));
    if (!m_stopPoll.isActive())
        m_stopPoll.start();
}

void RunHistoryRecorder::takeStopRequests()
{
    const Expected<QList<qint64>> requested = m_store->stopRequests().take(m_stoppers.keys());
    if (!requested) {
        qCDebug(lcHistory).noquote() << "stop requests could not be read:" << requested.error();
        return;
    }
    // Each looked up again: stopping one run can end another (a session's cells).
    for (qint64 handle : *requested)
        stop(handle);
}

bool RunHistoryRecorder::stop(qint64 handle)
{
    const std::function<void()> stopRun = m_stoppers.value(handle);
    if (!stopRun)
        return false;
    qCInfo(lcHistory) << "run" << handle << "stopped from the desktop app";
    stopRun();
    return true;
}

void RunHistoryRecorder::end(qint64 handle, const RunRecord& finished)
{
    if (handle <= 0)
        return;
    m_stoppers.remove(handle);
    if (m_stoppers.isEmpty())
        m_stopPoll.stop();
    if (const Expected<void> recorded = m_store->ledger().recordEnd(handle, finished); !recorded)
        qCWarning(lcHistory).noquote()
            << "the end of run" << handle
            << "could not be recorded in the history:" << recorded.error();
    // Every run ends here: the moment the history can have outgrown its budget.
    const QString filesKey = m_filesKeys.take(handle);
    m_pruner->pruneIfTooBig(
        filesKey.isEmpty() ? 0 : RunFilesStore(m_store->filesRoot()).bytesOf(filesKey));
}

void RunHistoryRecorder::setConfig(const Config& config)
{
    m_config = config;
    m_pruner->setPolicy(config.retention);
    m_pruner->setInterval(config.pruneInterval);
}

} // namespace csm
