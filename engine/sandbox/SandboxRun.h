#pragma once

#include "sandbox/CappedBuffer.h"
#include "sandbox/ContainerSpec.h"
#include "sandbox/ExecutionResult.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTimer>

namespace csm {

class SandboxRunner;

// One program in one fresh container: check the image (once per image and runner), start
// `ENGINE run --rm -i`, feed the code on stdin, collect capped stdout/stderr, enforce the
// deadline, and make sure the container is gone before finished() is emitted.
class SandboxRun final : public QObject
{
    Q_OBJECT

public:
    SandboxRun(SandboxRunner& runner, ContainerSpec spec, QByteArray code, int timeoutMs,
               QObject* parent = nullptr);
    ~SandboxRun() override;

    void start();
    // Kills and removes the container; finished() follows with Outcome::Cancelled.
    void cancel();
    QString containerName() const { return m_spec.name; }

Q_SIGNALS:
    void finished(const csm::ExecutionResult& result);

private:
    enum class Phase
    {
        Idle,
        CheckingImage,
        Running,
        Stopping, // killed (deadline or cancel): waiting for the engine to remove the container
        Done,
    };

    void checkImage(bool afterFailedRun);
    void onImageChecked(int exitCode, bool afterFailedRun);
    void launch();
    void onRunFinished(int exitCode, QProcess::ExitStatus status);
    void onRunError(QProcess::ProcessError error);
    void stop(ExecutionResult::Outcome reason);
    void maybeFinishStopping();
    void failWithEngineError(const QString& message);
    void finish(ExecutionResult::Outcome outcome, int exitCode);
    QString engineMissingMessage(const QString& processError) const;

    SandboxRunner& m_runner;
    ContainerSpec m_spec;
    QByteArray m_code;
    int m_timeoutMs;
    Phase m_phase = Phase::Idle;
    ExecutionResult::Outcome m_stopReason = ExecutionResult::Outcome::Cancelled;

    QPointer<QProcess> m_check;
    QPointer<QProcess> m_run;
    QPointer<QProcess> m_remove;
    bool m_runExited = false;
    int m_runExitCode = -1;
    QTimer m_deadline;
    QElapsedTimer m_clock;
    qint64 m_durationMs = 0;
    CappedBuffer m_stdout;
    CappedBuffer m_stderr;
};

} // namespace csm
