#include "ui/ImageOperations.h"

#include "runtime/ContainerRuntime.h"
#include "runtime/ContainersFolder.h"
#include "sandbox/SandboxFilesLocator.h"

#include <QDir>

#include <utility>

namespace csm {

namespace {
QString testCode(Language language)
{
    return language == Language::JavaScript ? QStringLiteral("console.log(1+1)")
                                            : QStringLiteral("print(1+1)");
}
} // namespace

ImageOperations::ImageOperations(QObject* parent)
    : QObject(parent)
{}

ImageOperations::~ImageOperations()
{
    // A running command is asked to stop as the job goes (EngineJob's destructor).
    if (m_job)
        m_job->disconnect(this);
}

void ImageOperations::setRuntime(std::shared_ptr<const ContainerRuntime> runtime)
{
    m_runtime = std::move(runtime);
}

qint64 ImageOperations::processId() const
{
    return m_job ? m_job->processId() : 0;
}

void ImageOperations::buildDefaultImage(Language language)
{
    if (!m_runtime || m_job)
        return;
    const QString folder = ContainersFolder::find();
    if (folder.isEmpty()) {
        Q_EMIT logged(
            tr("The image recipes (containers/build-images) were not found; looked in %1.")
                .arg(ContainersFolder::candidates().join(QStringLiteral(", "))));
        Q_EMIT finished(false, false);
        return;
    }
    if (m_method == BuildMethod::Dockerfile) {
        buildFromDockerfile(ContainersFolder::dockerfile(folder, language),
                            LanguageTraits::defaultImageName(language), folder);
        return;
    }
    start(Operation::Build, LanguageTraits::displayName(language),
          {ContainersFolder::buildScript(folder),
           ContainersFolder::buildScriptArguments(m_runtime->name(), language, m_rebuild)});
}

void ImageOperations::buildFromDockerfile(const QString& dockerfile, const QString& tag,
                                          const QString& contextDir)
{
    start(Operation::Build, tag,
          {m_runtime->program(), m_runtime->buildImageArguments(dockerfile, tag, contextDir)});
}

void ImageOperations::pull(const QString& image)
{
    start(Operation::Pull, image, {m_runtime->program(), m_runtime->pullImageArguments(image)});
}

void ImageOperations::remove(const QString& image)
{
    start(Operation::Remove, image, {m_runtime->program(), m_runtime->removeImageArguments(image)});
}

void ImageOperations::test(const QString& image, Language language)
{
    EngineJob::Command command{
        m_runtime->program(),
        m_runtime->quickRunArguments(image, LanguageTraits::interpreterCommand(language),
                                     SandboxFilesLocator::findSeccompProfile())};
    command.input = testCode(language).toUtf8() + '\n';
    // The test program prints to stdout only: whatever comes on stderr is the engine's
    // (rootless Podman warns there that it ignores the limits), and is shown as such.
    command.separateErrors = true;
    command.keepOutput = true; // what it printed is the test's answer
    start(Operation::Test, image, std::move(command));
}

void ImageOperations::cancel()
{
    if (!m_job || m_job->wasCancelled())
        return;
    Q_EMIT logged(tr("(cancelling)"));
    m_job->cancel();
}

void ImageOperations::start(Operation operation, const QString& subject, EngineJob::Command command)
{
    if (m_job || !m_runtime)
        return;
    m_operation = operation;
    m_subject = subject;
    m_jobRuntime = m_runtime;
    // The engine the settings name (build-images' own engine calls read the same variables).
    command.environment = m_runtime->processEnvironment();
    m_job = new EngineJob(std::move(command), this);
    connect(m_job, &EngineJob::lineReceived, this, &ImageOperations::logged);
    connect(m_job, &EngineJob::killedAfterGrace, this, [this] {
        Q_EMIT logged(tr("(still running %1 s after the request to stop: killed)")
                          .arg(kCancelGraceMs / 1000));
    });
    connect(m_job, &EngineJob::finished, this, &ImageOperations::onFinished);
    Q_EMIT logged(QStringLiteral("$ ") + m_job->commandLine());
    // Before start(): a program that cannot be started ends the job within it.
    Q_EMIT busyChanged(true);
    m_job->start();
}

void ImageOperations::onFinished()
{
    EngineJob* job = std::exchange(m_job, nullptr);
    job->disconnect(this);
    job->deleteLater();
    logEnding(*job);
    m_jobRuntime.reset();
    Q_EMIT busyChanged(false);
    Q_EMIT finished(job->succeeded(), m_operation != Operation::Test);
}

void ImageOperations::logEnding(const EngineJob& job)
{
    const ContainerRuntime& runtime = *m_jobRuntime;
    const QString seconds = QString::number(double(job.elapsedMs()) / 1000.0, 'f', 1);
    const bool ok = job.succeeded();
    if (job.ending() == EngineJob::Ending::FailedToStart) {
        Q_EMIT logged(tr("%1 could not be started: %2")
                          .arg(QDir::toNativeSeparators(job.program()), job.errorString()));
    } else if (job.wasCancelled()) {
        Q_EMIT logged(tr("Cancelled after %1 s.").arg(seconds));
        // An engine may keep what the cancelled build was working on: say where it is.
        const QString leftovers = runtime.cancelledBuildLeftovers();
        if (m_operation == Operation::Build && !leftovers.isEmpty() &&
            job.program() == runtime.program())
            Q_EMIT logged(leftovers);
    } else if (m_operation == Operation::Test) {
        // Shown as the engine's warnings on success; on failure they are the reason.
        for (const QString& warning : runtime.engineWarnings(job.errors()))
            Q_EMIT logged(ok ? tr("Engine warning: %1").arg(warning) : warning);
        Q_EMIT logged(ok ? tr("Test of %1: it printed %2 in %3 s.")
                               .arg(m_subject, job.output().trimmed(), seconds)
                         : tr("Test of %1 failed (exit code %2) after %3 s.")
                               .arg(m_subject)
                               .arg(job.exitCode())
                               .arg(seconds));
    } else if (job.ending() == EngineJob::Ending::Crashed) {
        Q_EMIT logged(tr("The command crashed after %1 s.").arg(seconds));
    } else if (job.exitCode() != 0) {
        Q_EMIT logged(tr("Failed with exit code %1 after %2 s.").arg(job.exitCode()).arg(seconds));
    } else {
        Q_EMIT logged(tr("Done in %1 s.").arg(seconds));
    }
}

} // namespace csm
