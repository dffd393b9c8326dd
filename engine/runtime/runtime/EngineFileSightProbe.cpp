#include "runtime/EngineFileSightProbe.h"

#include "runtime/ContainerRuntime.h"
#include "runtime/EngineMessage.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QStringList>
#include <QTemporaryDir>

#include <algorithm>
#include <optional>
#include <utility>

namespace csm {

namespace {

constexpr char kMarkerName[] = "marker";

} // namespace

EngineFileSightProbe::EngineFileSightProbe(const ContainerRuntime& runtime, QString image,
                                           QString launcher, int timeoutMs, QObject* parent)
    : QObject(parent)
    , m_runtime(runtime)
    , m_image(std::move(image))
    , m_launcher(std::move(launcher))
    , m_timeoutMs(timeoutMs)
{
    m_stepTimeout.setSingleShot(true);
    connect(&m_stepTimeout, &QTimer::timeout, this, [this] {
        m_stepError = "no answer in time";
        onStepFailed();
    });
}

EngineFileSightProbe::~EngineFileSightProbe()
{
    if (m_step) {
        m_step->disconnect(this);
        m_step->kill();
        m_step->waitForFinished(5'000);
    }
}

void EngineFileSightProbe::start()
{
    if (m_launcher.isEmpty()) {
        finish({Answer::Unknown, QStringLiteral("the sandbox's launcher was not found here")});
        return;
    }
    runStep(m_runtime.imageCheckArguments(m_image), &EngineFileSightProbe::onImageChecked);
}

EngineFileSightProbe::Result EngineFileSightProbe::ask(const ContainerRuntime& runtime,
                                                       const QString& image,
                                                       const QString& launcher, int timeoutMs)
{
    EngineFileSightProbe probe(runtime, image, launcher, timeoutMs);
    std::optional<Result> result;
    QEventLoop loop;
    connect(&probe, &EngineFileSightProbe::answered, &loop, [&](const Result& answer) {
        result = answer;
        loop.quit();
    });
    probe.start();
    if (!result)
        loop.exec();
    return result.value_or(Result{});
}

void EngineFileSightProbe::runStep(const QStringList& arguments,
                                   void (EngineFileSightProbe::*then)(int exitCode))
{
    m_stepOutput.clear();
    m_stepError.clear();
    m_step = m_runtime.newProcess(arguments, this);
    connect(m_step, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        m_stepError = m_step->errorString().toUtf8();
        onStepFailed();
    });
    connect(m_step, &QProcess::finished, this,
            [this, then](int exitCode, QProcess::ExitStatus status) {
                m_stepTimeout.stop();
                m_stepOutput = m_step->readAllStandardOutput();
                m_stepError = m_step->readAllStandardError();
                m_step->deleteLater();
                m_step = nullptr;
                if (status == QProcess::NormalExit)
                    (this->*then)(exitCode);
                else
                    onStepFailed();
            });
    m_stepTimeout.start(m_timeoutMs);
    m_step->start();
    // Nothing is read from stdin: a `run` without -i would not wait for it, one with it must
    // not.
    if (m_step)
        m_step->closeWriteChannel();
}

void EngineFileSightProbe::onStepFailed()
{
    m_stepTimeout.stop();
    if (m_step) {
        m_step->disconnect(this);
        // Killed, it ends at once: reaped here, not left running for its parent's destructor.
        m_step->kill();
        m_step->waitForFinished(1'000);
        m_step->deleteLater();
        m_step = nullptr;
    }
    finish({Answer::Unknown, QStringLiteral("the engine did not answer (%1)")
                                 .arg(engineMessageLine(m_stepError, 300))});
}

void EngineFileSightProbe::onImageChecked(int exitCode)
{
    const ImageCheck present = m_runtime.interpretImageCheck(exitCode, m_stepError);
    if (present.status != ImageCheck::Status::Present) {
        finish(
            {Answer::Unknown, QStringLiteral("no container could be started there (%1: %2)")
                                  .arg(m_image, present.detail.section(QLatin1Char('\n'), 0, 0))});
        return;
    }
    // Under the temporary folder, where a local engine's sandboxes get their folders; readable
    // by the sandbox's user, which is not ours.
    m_folder = std::make_unique<QTemporaryDir>(
        QDir::temp().filePath(QStringLiteral("csm-engine-sight-XXXXXX")));
    if (!m_folder->isValid()) {
        finish({Answer::Unknown, m_folder->errorString()});
        return;
    }
    m_token = QByteArray::number(QRandomGenerator::system()->generate64(), 36) +
              QByteArray::number(QRandomGenerator::system()->generate64(), 36);
    QFile marker(m_folder->filePath(QLatin1String(kMarkerName)));
    if (!marker.open(QIODevice::WriteOnly) || marker.write(m_token) != m_token.size()) {
        finish({Answer::Unknown, marker.errorString()});
        return;
    }
    marker.close();
    const auto readable = QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther;
    const auto executable = QFileDevice::ExeOwner | QFileDevice::ExeGroup | QFileDevice::ExeOther;
    marker.setPermissions(readable | QFileDevice::WriteOwner);
    QFile::setPermissions(m_folder->path(), readable | executable | QFileDevice::WriteOwner);
    runStep(m_runtime.fileSightArguments(m_image, m_folder->path(), QLatin1String(kMarkerName),
                                         m_launcher),
            &EngineFileSightProbe::onRunEnded);
}

void EngineFileSightProbe::onRunEnded(int exitCode)
{
    finish(interpret(exitCode, m_stepOutput, m_stepError, m_token, {m_folder->path(), m_launcher}));
}

void EngineFileSightProbe::finish(Result result)
{
    if (std::exchange(m_answered, true))
        return;
    m_folder.reset();
    Q_EMIT answered(result);
}

EngineFileSightProbe::Result EngineFileSightProbe::interpret(int exitCode,
                                                             const QByteArray& standardOutput,
                                                             const QByteArray& standardError,
                                                             const QByteArray& token,
                                                             const QStringList& paths)
{
    if (exitCode == 0 && standardOutput == token)
        return {Answer::Sees, QStringLiteral("a container read a file this machine had just made")};
    if (exitCode == 0)
        return {Answer::DoesNotSee,
                QStringLiteral("a container found other contents at the path of a file this "
                               "machine had just made")};
    // The engine refused a mount whose source it has not, or the mount was there but empty
    // (`cat` found no marker): their words name the path. Other words (a missing `cat`, a
    // broken engine) say nothing about where the engine is.
    const QString said = QString::fromUtf8(standardError);
    const bool namesAPath = std::any_of(paths.cbegin(), paths.cend(),
                                        [&](const QString& path) { return said.contains(path); });
    if (namesAPath)
        return {Answer::DoesNotSee,
                QStringLiteral("a container could not mount a file of this machine (%1)")
                    .arg(engineMessageLine(standardError, 300))};
    return {Answer::Unknown, QStringLiteral("a container could not be started there (%1)")
                                 .arg(engineMessageLine(standardError, 300))};
}

} // namespace csm
