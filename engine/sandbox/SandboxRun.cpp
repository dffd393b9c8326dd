#include "sandbox/SandboxRun.h"

#include "core/Logging.h"
#include "runtime/ContainerRuntime.h"
#include "sandbox/SandboxRunner.h"

namespace csm {

namespace {
// Exit status with which podman and docker report that *they* failed, not the program.
constexpr int kEngineFailureExitCode = 125;
// After the engine removed a killed container its client normally exits at once; this bounds
// the wait for one that does not.
constexpr int kClientExitGraceMs = 5'000;

QProcess* newEngineProcess(const ContainerRuntime& runtime, QObject* parent)
{
    auto* process = new QProcess(parent);
    process->setProgram(runtime.program());
    return process;
}
} // namespace

SandboxRun::SandboxRun(SandboxRunner& runner, ContainerSpec spec, QByteArray code, int timeoutMs,
                       QObject* parent)
    : QObject(parent)
    , m_runner(runner)
    , m_spec(std::move(spec))
    , m_code(std::move(code))
    , m_timeoutMs(timeoutMs)
    , m_stdout(m_spec.policy.outputCapBytes)
    , m_stderr(m_spec.policy.outputCapBytes)
{
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this,
            [this] { stop(ExecutionResult::Outcome::TimedOut); });
}

SandboxRun::~SandboxRun()
{
    // Destroyed while its container may still exist (e.g. the server is going down without
    // waiting): remove it without blocking; the engine finishes the job on its own.
    if (m_phase == Phase::Running || m_phase == Phase::Stopping) {
        QProcess::startDetached(m_runner.runtime().program(),
                                m_runner.runtime().forceRemoveArguments(m_spec.name));
    }
}

void SandboxRun::start()
{
    m_phase = Phase::CheckingImage;
    // Deferred, so that finished() is never emitted from inside start(), even when the engine
    // cannot be started at all.
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (m_phase != Phase::CheckingImage)
                return; // cancelled meanwhile
            if (m_runner.isImageKnownPresent(m_spec.image))
                launch();
            else
                checkImage(false);
        },
        Qt::QueuedConnection);
}

void SandboxRun::checkImage(bool afterFailedRun)
{
    m_phase = Phase::CheckingImage;
    const ContainerRuntime& runtime = m_runner.runtime();
    m_check = newEngineProcess(runtime, this);
    m_check->setArguments(runtime.imageCheckArguments(m_spec.image));
    connect(m_check, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart && m_phase == Phase::CheckingImage)
            failWithEngineError(engineMissingMessage(m_check->errorString()));
    });
    connect(m_check, &QProcess::finished, this,
            [this, afterFailedRun](int exitCode, QProcess::ExitStatus status) {
                if (m_phase != Phase::CheckingImage)
                    return;
                onImageChecked(status == QProcess::NormalExit ? exitCode : -1, afterFailedRun);
            });
    m_check->start();
}

void SandboxRun::onImageChecked(int exitCode, bool afterFailedRun)
{
    const ContainerRuntime& runtime = m_runner.runtime();
    const ImageCheck check = runtime.interpretImageCheck(exitCode, m_check->readAllStandardError());
    m_check->deleteLater();
    switch (check.status) {
    case ImageCheck::Status::Present:
        m_runner.setImageKnownPresent(m_spec.image, true);
        if (afterFailedRun)
            finish(ExecutionResult::Outcome::Exited, m_runExitCode); // the program's own 125
        else
            launch();
        return;
    case ImageCheck::Status::Missing:
        m_runner.setImageKnownPresent(m_spec.image, false);
        failWithEngineError(
            QStringLiteral("The sandbox image \"%1\" is not available in %2. Build the default "
                           "images with `containers/build-images --engine %2` (from the Code "
                           "Sandbox sources), or choose another image with --python-image / "
                           "--js-image or CONTAINER_IMAGE.")
                .arg(m_spec.image, runtime.name()));
        return;
    case ImageCheck::Status::EngineUnavailable:
        m_runner.setImageKnownPresent(m_spec.image, false);
        failWithEngineError(
            QStringLiteral("The container engine %1 is not usable: %2%3")
                .arg(runtime.name(),
                     check.detail.isEmpty() ? QStringLiteral("it gave no reason") : check.detail,
                     runtime.name() == QLatin1String("docker")
                         ? QStringLiteral(". Is the Docker daemon running (e.g. `sudo systemctl "
                                          "start docker`), and may this user use it?")
                         : QString()));
        return;
    }
}

void SandboxRun::launch()
{
    if (m_phase != Phase::CheckingImage)
        return; // cancelled before it started
    m_phase = Phase::Running;
    const ContainerRuntime& runtime = m_runner.runtime();
    m_run = newEngineProcess(runtime, this);
    m_run->setArguments(runtime.runArguments(m_spec));
    // The engine inherits the server's environment; pass-through values reach the sandbox from
    // there by name, never through argv.
    m_run->setProcessEnvironment(QProcessEnvironment::systemEnvironment());
    connect(m_run, &QProcess::readyReadStandardOutput, this,
            [this] { m_stdout.append(m_run->readAllStandardOutput()); });
    connect(m_run, &QProcess::readyReadStandardError, this,
            [this] { m_stderr.append(m_run->readAllStandardError()); });
    connect(m_run, &QProcess::started, this, [this] {
        m_clock.start();
        m_deadline.start(m_timeoutMs);
        m_run->write(m_code);
        m_run->closeWriteChannel();
        m_code = {}; // the process keeps its own copy until it is written
    });
    connect(m_run, &QProcess::errorOccurred, this, &SandboxRun::onRunError);
    connect(m_run, &QProcess::finished, this, &SandboxRun::onRunFinished);
    qCDebug(lcSandbox).noquote() << "starting" << m_spec.name << "from" << m_spec.image;
    m_run->start();
}

void SandboxRun::onRunError(QProcess::ProcessError error)
{
    if (error == QProcess::FailedToStart && m_phase == Phase::Running) {
        m_runner.setImageKnownPresent(m_spec.image, false);
        failWithEngineError(engineMissingMessage(m_run->errorString()));
    }
    // Write errors (the program closed stdin early) are normal; its exit status tells the story.
}

void SandboxRun::onRunFinished(int exitCode, QProcess::ExitStatus status)
{
    m_durationMs = m_clock.isValid() ? m_clock.elapsed() : 0;
    m_deadline.stop();
    m_stdout.append(m_run->readAllStandardOutput());
    m_stderr.append(m_run->readAllStandardError());
    m_runExited = true;
    m_runExitCode = status == QProcess::NormalExit ? exitCode : -1;

    if (m_phase == Phase::Stopping) {
        maybeFinishStopping();
        return;
    }
    if (m_phase != Phase::Running)
        return;
    if (m_runExitCode == kEngineFailureExitCode) {
        // Either the engine failed (image removed since we checked, daemon gone) or the program
        // itself exited 125: ask the engine again to tell which.
        m_runner.setImageKnownPresent(m_spec.image, false);
        checkImage(true);
        return;
    }
    finish(ExecutionResult::Outcome::Exited, m_runExitCode);
}

void SandboxRun::cancel()
{
    switch (m_phase) {
    case Phase::Idle:
    case Phase::CheckingImage:
        if (m_check)
            m_check->kill();
        finish(ExecutionResult::Outcome::Cancelled, -1);
        return;
    case Phase::Running:
        stop(ExecutionResult::Outcome::Cancelled);
        return;
    case Phase::Stopping:
    case Phase::Done:
        return;
    }
}

void SandboxRun::stop(ExecutionResult::Outcome reason)
{
    if (m_phase != Phase::Running)
        return;
    m_phase = Phase::Stopping;
    m_stopReason = reason;
    m_deadline.stop();
    if (m_clock.isValid())
        m_durationMs = m_clock.elapsed();
    qCInfo(lcSandbox).noquote() << (reason == ExecutionResult::Outcome::TimedOut
                                        ? "deadline reached, removing"
                                        : "cancelled, removing")
                                << m_spec.name;
    // Removing the container (not just killing its client) is what stops the program: the
    // container belongs to the engine, not to the `run` process we started.
    const ContainerRuntime& runtime = m_runner.runtime();
    m_remove = newEngineProcess(runtime, this);
    m_remove->setArguments(runtime.forceRemoveArguments(m_spec.name));
    connect(m_remove, &QProcess::finished, this, [this] {
        if (m_run && !m_runExited) {
            QTimer::singleShot(kClientExitGraceMs, m_run, [run = m_run] { run->kill(); });
        }
        maybeFinishStopping();
    });
    connect(m_remove, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            if (m_run)
                m_run->kill();
            maybeFinishStopping();
        }
    });
    m_remove->start();
}

void SandboxRun::maybeFinishStopping()
{
    const bool removalDone = !m_remove || m_remove->state() == QProcess::NotRunning;
    if (m_phase == Phase::Stopping && removalDone && m_runExited)
        finish(m_stopReason, m_runExitCode);
}

void SandboxRun::failWithEngineError(const QString& message)
{
    if (m_phase == Phase::Done)
        return;
    qCWarning(lcSandbox).noquote() << message;
    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::EngineError;
    result.engineError = message;
    m_phase = Phase::Done;
    Q_EMIT finished(result);
}

void SandboxRun::finish(ExecutionResult::Outcome outcome, int exitCode)
{
    if (m_phase == Phase::Done)
        return;
    m_phase = Phase::Done;
    ExecutionResult result;
    result.outcome = outcome;
    result.exitCode = exitCode;
    result.durationMs = m_durationMs;
    result.stdoutBytes = m_stdout.data();
    result.stderrBytes = m_stderr.data();
    result.stdoutTruncated = m_stdout.truncated();
    result.stderrTruncated = m_stderr.truncated();
    Q_EMIT finished(result);
}

QString SandboxRun::engineMissingMessage(const QString& processError) const
{
    const QString engine = m_runner.runtime().name();
    return QStringLiteral("The container engine \"%1\" could not be started (%2). Install it "
                          "(on Debian: `sudo apt install %3`) or choose another with --engine "
                          "podman|docker.")
        .arg(m_runner.runtime().program(), processError,
             engine == QLatin1String("docker") ? QStringLiteral("docker.io") : engine);
}

} // namespace csm
