#include "tools/RunCodeCall.h"

#include "sandbox/SandboxRun.h"
#include "tools/ToolResultFormatter.h"

namespace csm {

RunCodeCall::RunCodeCall(QObject* parent)
    : ToolCall(parent)
{}

RunCodeCall::RunCodeCall(SandboxRun* run, QObject* parent)
    : ToolCall(parent)
    , m_run(run)
{
    run->setParent(this);
    connect(run, &SandboxRun::finished, this, &RunCodeCall::onRunFinished);
}

RunCodeCall* RunCodeCall::failed(const QString& message, QObject* parent)
{
    auto* call = new RunCodeCall(parent);
    // Queued: the dispatcher connects to finished() after start() returns.
    QMetaObject::invokeMethod(
        call,
        [call, message] {
            if (!call->m_cancelled)
                Q_EMIT call->finished(ToolResultFormatter::errorResult(message));
        },
        Qt::QueuedConnection);
    return call;
}

void RunCodeCall::cancel()
{
    if (m_cancelled)
        return;
    m_cancelled = true;
    if (m_run)
        m_run->cancel();
    else
        QMetaObject::invokeMethod(this, &ToolCall::cancelled, Qt::QueuedConnection);
}

QString RunCodeCall::progressMessage() const
{
    return m_run ? m_run->latestOutputLine() : QString();
}

void RunCodeCall::onRunFinished(const ExecutionResult& result)
{
    if (result.outcome == ExecutionResult::Outcome::Cancelled) {
        Q_EMIT cancelled();
        return;
    }
    if (result.outcome == ExecutionResult::Outcome::EngineError) {
        Q_EMIT finished(ToolResultFormatter::errorResult(result.engineError));
        return;
    }
    Q_EMIT finished(ToolResultFormatter::format(result));
}

} // namespace csm
