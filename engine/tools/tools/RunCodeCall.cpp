#include "tools/RunCodeCall.h"

#include "mcp/ToolResult.h"
#include "sandbox/ExecutionResult.h"
#include "sandbox/LiveOutputTail.h"
#include "sandbox/RunFileRedactor.h"
#include "sandbox/SandboxRun.h"
#include "sandbox/SandboxSecrets.h"
#include "tools/RunObserver.h"
#include "tools/ToolResultFormatter.h"

#include <QDir>

#include <algorithm>
#include <utility>

namespace csm {

namespace {
ExecutionResult cancelledResult()
{
    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::Cancelled;
    return result;
}
} // namespace

RunCodeCall::RunCodeCall(QObject* parent, RunObserver* observer, qint64 handle)
    : ToolCall(parent)
    , m_observer(observer)
    , m_handle(observer ? handle : 0)
{}

RunCodeCall::RunCodeCall(SandboxRun* run, bool redactOutput, QObject* parent, RunObserver* observer,
                         qint64 handle)
    : RunCodeCall(parent, observer, handle)
{
    m_redactOutput = redactOutput;
    m_run = run;
    run->setParent(this);
    connect(run, &SandboxRun::finished, this, &RunCodeCall::onRunFinished);
    if (m_handle == 0)
        return;
    // A program printing 10,000 lines a second costs one write of its latest output per
    // interval, not one per line; one that prints now and then has each line written at once.
    m_printedDelay.setSingleShot(true);
    connect(&m_printedDelay, &QTimer::timeout, this, &RunCodeCall::reportPrinted);
    connect(run, &SandboxRun::printed, this, &RunCodeCall::onPrinted);
    m_observer->watchForStop(m_handle, [this] { stopByUser(); });
}

void RunCodeCall::onPrinted()
{
    if (m_printedDelay.isActive())
        return;
    // 0 (the first output, or a pause longer than the interval): once the frames read together
    // with this one are decoded.
    const qint64 sinceLast =
        m_sinceReported.isValid() ? m_sinceReported.elapsed() : kPrintedIntervalMs;
    m_printedDelay.start(int(std::max<qint64>(0, kPrintedIntervalMs - sinceLast)));
}

void RunCodeCall::reportPrinted()
{
    if (m_handle == 0 || !m_run)
        return;
    // Past the output cap the kept output stops growing: nothing new to write.
    const std::pair<qsizetype, qsizetype> sizes{m_run->stdoutSoFar().size(),
                                                m_run->stderrSoFar().size()};
    if (sizes == m_reportedSizes)
        return;
    m_reportedSizes = sizes;
    m_sinceReported.start();
    const SecretRedactor& redactor = m_run->secrets()->redactor();
    m_observer->runPrinted(m_handle, LiveOutputTail::of(m_run->stdoutSoFar(), redactor),
                           LiveOutputTail::of(m_run->stderrSoFar(), redactor));
}

void RunCodeCall::stopByUser()
{
    if (m_cancelled || !m_run)
        return;
    m_stoppedByUser = true;
    m_run->cancel();
}

RunCodeCall::~RunCodeCall()
{
    reportEnd(cancelledResult());
}

RunCodeCall* RunCodeCall::failed(const QString& message, QObject* parent, RunObserver* observer,
                                 qint64 handle)
{
    auto* call = new RunCodeCall(parent, observer, handle);
    // Queued: the dispatcher connects to finished() after start() returns.
    QMetaObject::invokeMethod(
        call,
        [call, message] {
            if (call->m_cancelled)
                return;
            call->reportFailure(message);
            Q_EMIT call->finished(ToolResult::error(message));
        },
        Qt::QueuedConnection);
    return call;
}

void RunCodeCall::cancel()
{
    if (m_cancelled)
        return;
    m_cancelled = true;
    if (m_run) {
        m_run->cancel();
    } else {
        reportEnd(cancelledResult());
        QMetaObject::invokeMethod(this, &ToolCall::cancelled, Qt::QueuedConnection);
    }
}

QString RunCodeCall::progressMessage() const
{
    if (!m_run)
        return {};
    return m_run->progressMessage(m_redactOutput ? &m_run->secrets()->redactor() : nullptr);
}

void RunCodeCall::tidyFiles(const ExecutionResult& result) const
{
    if (!m_files)
        return;
    // Made by the first file kept (RunFilesStore::reserve): most calls keep none.
    const QDir folder(m_files->store.folder(m_files->key));
    if (!folder.exists())
        return;
    if (result.outcome != ExecutionResult::Outcome::Exited)
        QDir(folder.filePath(QStringLiteral("out"))).removeRecursively();
    const bool empty = QDir(folder.filePath(QStringLiteral("in")))
                           .isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden) &&
                       result.outputFiles.isEmpty();
    if (empty)
        m_files->store.remove(m_files->key);
}

void RunCodeCall::onRunFinished(const ExecutionResult& ended)
{
    m_printedDelay.stop();
    ExecutionResult result = ended;
    // A client that cancelled meanwhile wants no answer: its cancellation wins.
    result.stoppedByUser =
        m_stoppedByUser && !m_cancelled && result.outcome == ExecutionResult::Outcome::Cancelled;
    // Whatever --no-redact says: the files on disk are the history's copy as well. The inputs'
    // copies again too: the call may have come before the secrets were read.
    const SecretRedactor& redactor = m_run->secrets()->redactor();
    RunFileRedactor::redact(result.outputFiles, redactor);
    if (m_files) {
        RunFileRedactor::redactFolder(
            QDir(m_files->store.folder(m_files->key)).filePath(QStringLiteral("in")), redactor);
    }
    tidyFiles(result);
    const ExecutionResult safe = m_run->secrets()->redacted(result);
    // Recorded before the client hears of it, so a client that reads the history after its
    // answer finds the run ended.
    reportEnd(safe);
    const ExecutionResult& answer = m_redactOutput ? safe : result;
    // Stopped from the app, the call still owes its client an answer: what the run printed, and
    // that a person stopped it (ToolResultFormatter), so that the model does not try again.
    if (answer.outcome == ExecutionResult::Outcome::Cancelled && !answer.stoppedByUser) {
        Q_EMIT cancelled();
        return;
    }
    if (answer.outcome == ExecutionResult::Outcome::EngineError ||
        answer.outcome == ExecutionResult::Outcome::TimedOutWaiting) {
        Q_EMIT finished(ToolResult::error(answer.engineError));
        return;
    }
    Q_EMIT finished(
        m_files ? ToolResultFormatter::format(answer, m_files->key, m_files->sandboxOutputDirectory)
                : ToolResultFormatter::format(answer));
}

void RunCodeCall::reportEnd(const ExecutionResult& result)
{
    if (const qint64 handle = std::exchange(m_handle, 0))
        m_observer->runEnded(handle, result);
}

void RunCodeCall::reportFailure(const QString& message)
{
    if (const qint64 handle = std::exchange(m_handle, 0))
        m_observer->runFailed(handle, message);
}

} // namespace csm
