#pragma once

#include "core/RunFilesStore.h"
#include "mcp/ToolCall.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QTimer>

#include <optional>
#include <utility>

namespace csm {

class RunObserver;
class SandboxRun;
struct ExecutionResult;

// A run_*_code call in flight: owns its sandbox run and reports its result, and its end to the
// observer (when there is one) exactly once, whichever way it ends. The values of the secrets in
// the run's container never reach the observer, and reach the client only if asked for. While
// the run prints, the observer hears what it printed so far, a few times a second at most; and
// the observer may stop the run (the desktop app's Stop): the client then gets what the run
// printed, with a note that a person stopped it.
class RunCodeCall final : public ToolCall
{
    Q_OBJECT

public:
    // A call that cannot run; the error reaches the client as a result with isError.
    // `observer` (may be null) gets the end of the call it reported as `handle`.
    static RunCodeCall* failed(const QString& message, QObject* parent,
                               RunObserver* observer = nullptr, qint64 handle = 0);
    // `redactOutput`: whether the client gets the run's secret values replaced by
    // [secret:NAME] in the output and progress messages. The observer always gets them
    // redacted.
    RunCodeCall(SandboxRun* run, bool redactOutput, QObject* parent,
                RunObserver* observer = nullptr, qint64 handle = 0);
    // A call destroyed before its end was reported (the server exiting past its shutdown
    // budget) is reported as cancelled, so that no record stays "running".
    ~RunCodeCall() override;

    // The run's folder in the store (its key names the files' URIs) and where the program
    // leaves its files in the sandbox. Without it the result lists no files.
    struct Files
    {
        RunFilesStore store;
        QString key;
        QString sandboxOutputDirectory;
    };
    void setFiles(Files files) { m_files = std::move(files); }

    // How often, at most, the observer hears what the run printed so far (output after a
    // longer pause is reported at once).
    static constexpr int kPrintedIntervalMs = 100;

    void cancel() override;
    QString progressMessage() const override;

private:
    void onPrinted();
    void reportPrinted();
    void stopByUser();
    RunCodeCall(QObject* parent, RunObserver* observer, qint64 handle);
    void onRunFinished(const ExecutionResult& result);
    // Drops what a run that did not end normally left half-written, and a folder with nothing.
    void tidyFiles(const ExecutionResult& result) const;
    void reportEnd(const ExecutionResult& result);
    void reportFailure(const QString& message);

    QPointer<SandboxRun> m_run;
    RunObserver* m_observer = nullptr;
    qint64 m_handle = 0; // 0 once the end has been reported (or when nothing is recorded)
    bool m_cancelled = false;
    bool m_stoppedByUser = false;
    bool m_redactOutput = true;
    QTimer m_printedDelay;
    QElapsedTimer m_sinceReported;
    std::pair<qsizetype, qsizetype> m_reportedSizes{0, 0}; // stdout, stderr last reported
    std::optional<Files> m_files;
};

} // namespace csm
