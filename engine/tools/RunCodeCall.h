#pragma once

#include "mcp/ToolCall.h"

#include <QPointer>

namespace csm {

class SandboxRun;
struct ExecutionResult;

// A run_*_code call in flight: owns its sandbox run and reports its result.
class RunCodeCall final : public ToolCall
{
    Q_OBJECT

public:
    // A call that cannot run; the error reaches the client as a result with isError.
    static RunCodeCall* failed(const QString& message, QObject* parent);
    RunCodeCall(SandboxRun* run, QObject* parent);

    void cancel() override;
    QString progressMessage() const override;

private:
    explicit RunCodeCall(QObject* parent);
    void onRunFinished(const ExecutionResult& result);

    QPointer<SandboxRun> m_run;
    bool m_cancelled = false;
};

} // namespace csm
