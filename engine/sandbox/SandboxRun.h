#pragma once

#include "sandbox/CappedBuffer.h"
#include "sandbox/ContainerSpec.h"
#include "sandbox/ExecutionResult.h"
#include "sandbox/LauncherStreamDecoder.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QTimer>

namespace csm {

class SandboxRunner;
struct LauncherExitStatus;

// One program in one fresh container: check the image (once per image and runner), start
// `ENGINE run --rm -i` with csm-launch as PID 1, feed the code on stdin, decode the launcher's
// frames (started, stdout, stderr, exit), enforce the deadline from the moment the program
// starts, and report. The result is emitted as soon as the launcher reports the exit; the
// engine's own teardown continues in the runner's ContainerReaper.
class SandboxRun final : public QObject
{
    Q_OBJECT

public:
    // How long the engine may take to create and start a container before we give up on it.
    static constexpr int kStartTimeoutMs = 60'000;

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
        Starting, // the engine is creating the container; the program has not started
        Running,  // the launcher said the program started: the deadline runs
        Stopping, // killed (deadline or cancel): waiting for the engine to remove the container
        Done,
    };

    void checkImage(bool afterEngineFailure);
    void onImageChecked(int exitCode, bool afterEngineFailure);
    void launch();
    void onClientOutput();
    void onFrame(const LauncherStreamDecoder::Frame& frame);
    void onProgramExited(const LauncherExitStatus& status);
    void onClientFinished(int exitCode, QProcess::ExitStatus status);
    void onClientError(QProcess::ProcessError error);
    void stop(ExecutionResult::Outcome reason);
    void failWithEngineError(const QString& message);
    void finish(ExecutionResult result);
    void handOverClient(bool removeContainer);
    ExecutionResult collectedResult() const;
    QString engineMissingMessage(const QString& processError) const;
    QString engineStderr() const;

    SandboxRunner& m_runner;
    ContainerSpec m_spec;
    QByteArray m_code;
    int m_timeoutMs;
    Phase m_phase = Phase::Idle;
    ExecutionResult::Outcome m_stopReason = ExecutionResult::Outcome::Cancelled;

    QPointer<QProcess> m_check;
    QPointer<QProcess> m_client;
    QPointer<QProcess> m_remove;
    LauncherStreamDecoder m_decoder;
    QTimer m_deadline;
    QTimer m_startDeadline;
    QElapsedTimer m_clock;
    qint64 m_durationMs = 0;
    CappedBuffer m_stdout;
    CappedBuffer m_stderr;
    CappedBuffer m_engineStderr;
};

} // namespace csm
