#include "runtime/EngineHealthCheck.h"

#include "runtime/ContainerRuntime.h"
#include "runtime/ContainersFolder.h"
#include "runtime/RuntimeFactory.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>

namespace csm {

namespace {
QString buildCommand(const QString& engine, Language language)
{
    QString script = ContainersFolder::find();
    script = script.isEmpty() ? QStringLiteral("containers/build-images")
                              : QDir::toNativeSeparators(ContainersFolder::buildScript(script));
    return (QStringList{script} + ContainersFolder::buildScriptArguments(engine, language, false))
        .join(u' ');
}

HealthProblem engineProblem(const ContainerRuntime& runtime, const QString& detail, bool missing)
{
    const QString engine = runtime.name();
    HealthProblem problem;
    problem.kind =
        missing ? HealthProblem::Kind::EngineMissing : HealthProblem::Kind::EngineUnavailable;
    if (missing) {
        problem.message = EngineHealthCheck::tr("%1 not found").arg(engine);
        problem.fixCommand = runtime.installCommand();
    } else {
        problem.message =
            detail.isEmpty() ? EngineHealthCheck::tr("%1 is not answering").arg(engine)
                             : EngineHealthCheck::tr("%1 is not answering: %2").arg(engine, detail);
        problem.fixCommand = runtime.unavailableFixCommand();
    }
    return problem;
}
} // namespace

EngineHealthCheck::EngineHealthCheck(QObject* parent)
    : QObject(parent)
{}

EngineHealthCheck::~EngineHealthCheck()
{
    // The processes are our children and go with us: killed first, a QProcess is reaped in
    // milliseconds instead of being waited for (with a warning) by its destructor.
    for (QProcess* process : std::as_const(m_processes)) {
        process->disconnect(this);
        process->kill();
        process->waitForFinished(1000);
    }
}

QList<EngineHealthCheck::Image> EngineHealthCheck::imagesOf(const EngineChoice& choice,
                                                            const ContainerRuntime& runtime)
{
    QList<Image> images;
    for (Language language : {Language::Python, Language::JavaScript}) {
        Image image;
        image.language = language;
        const QString chosen = choice.image(language);
        image.isDefault = chosen.isEmpty();
        image.reference = image.isDefault ? runtime.defaultImage(language) : chosen;
        images << image;
    }
    return images;
}

QString EngineHealthCheck::engineName() const
{
    return m_runtime ? m_runtime->name() : QString();
}

void EngineHealthCheck::start(const EngineChoice& choice)
{
    std::shared_ptr<const ContainerRuntime> runtime =
        RuntimeFactory::create(choice.engine, choice.endpoint);
    if (!runtime) {
        abandon();
        m_runtime.reset();
        HealthProblem problem;
        problem.kind = HealthProblem::Kind::EngineMissing;
        problem.message = tr("unknown engine \"%1\" in the settings").arg(choice.engine);
        problem.fixCommand = tr("choose podman or docker in Settings");
        m_problems = {problem};
        // Asynchronous like every other outcome, so callers connect first and start second.
        QTimer::singleShot(0, this, [this, generation = m_generation] {
            if (generation == m_generation)
                Q_EMIT finished(m_problems);
        });
        return;
    }
    const QList<Image> images = imagesOf(choice, *runtime);
    start(std::move(runtime), images);
}

void EngineHealthCheck::start(std::shared_ptr<const ContainerRuntime> runtime,
                              const QList<Image>& images)
{
    abandon();
    m_runtime = std::move(runtime);
    m_found.clear();
    // The engine's program first: a missing one is the one thing worth saying.
    const QString program = m_runtime->program();
    if (QStandardPaths::findExecutable(program).isEmpty() &&
        !(QDir::isAbsolutePath(program) && QFileInfo(program).isExecutable())) {
        m_pending = 1;
        QTimer::singleShot(0, this, [this, generation = m_generation] {
            if (generation != m_generation)
                return;
            onEngineFailed({}, true);
            finishOne();
        });
        return;
    }
    m_pending = int(images.size());
    for (const Image& image : images)
        checkImage(image);
    if (images.isEmpty()) {
        m_pending = 1;
        QTimer::singleShot(0, this, [this, generation = m_generation] {
            if (generation == m_generation)
                finishOne();
        });
    }
}

void EngineHealthCheck::abandon()
{
    for (QProcess* process : std::as_const(m_processes)) {
        process->disconnect(this);
        process->kill();
        // Deleted once reaped: deleting a running QProcess blocks until it ends.
        connect(process, &QProcess::finished, process, &QObject::deleteLater);
    }
    m_processes.clear();
    m_pending = 0;
    // Outcomes already queued belong to the abandoned check.
    ++m_generation;
}

void EngineHealthCheck::checkImage(const Image& image)
{
    QProcess* process =
        m_runtime->newProcess(m_runtime->imageCheckArguments(image.reference), this);
    m_processes << process;
    auto* timeout = new QTimer(process);
    timeout->setSingleShot(true);
    connect(timeout, &QTimer::timeout, this, [this, process] {
        process->disconnect(this);
        process->kill();
        onEngineFailed(tr("no answer within %1 s").arg(kTimeoutMs / 1000), false);
        m_processes.removeOne(process);
        process->deleteLater();
        finishOne();
    });
    connect(process, &QProcess::finished, this,
            [this, image, process] { onImageChecked(image, process); });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        // Crashes and timeouts end in finished() or the timer; only a failed start ends here.
        if (error != QProcess::FailedToStart)
            return;
        process->disconnect(this);
        onEngineFailed(process->errorString(), true);
        m_processes.removeOne(process);
        process->deleteLater();
        finishOne();
    });
    process->start();
    timeout->start(kTimeoutMs);
}

void EngineHealthCheck::onImageChecked(const Image& image, QProcess* process)
{
    process->disconnect(this);
    m_processes.removeOne(process);
    process->deleteLater();
    const ImageCheck check =
        process->exitStatus() == QProcess::NormalExit
            ? m_runtime->interpretImageCheck(process->exitCode(), process->readAllStandardError())
            : ImageCheck{ImageCheck::Status::EngineUnavailable, tr("the engine crashed")};
    switch (check.status) {
    case ImageCheck::Status::Present:
        break;
    case ImageCheck::Status::EngineUnavailable:
        onEngineFailed(check.detail, false);
        break;
    case ImageCheck::Status::Missing: {
        HealthProblem problem;
        problem.kind = HealthProblem::Kind::ImageMissing;
        problem.language = image.language;
        problem.image = image.reference;
        problem.defaultImage = image.isDefault;
        if (image.isDefault) {
            problem.message = tr("image not built: %1").arg(image.reference);
            problem.fixCommand = buildCommand(m_runtime->name(), image.language);
        } else {
            problem.message =
                tr("image not found: %1 (the %2 image in the settings)")
                    .arg(image.reference, LanguageTraits::displayName(image.language));
            // A name of this machine's own images is in no registry.
            problem.pullable = !image.reference.startsWith(QLatin1String("localhost/"));
            problem.fixCommand =
                problem.pullable
                    ? (QStringList{m_runtime->name()} +
                       m_runtime->pullImageArguments(image.reference))
                          .join(u' ')
                    : tr("build %1 on this machine, or choose another image in Settings")
                          .arg(image.reference);
        }
        m_found << problem;
        break;
    }
    }
    finishOne();
}

void EngineHealthCheck::onEngineFailed(const QString& detail, bool missing)
{
    // One engine problem is enough: it is the cause of whatever else failed.
    for (const HealthProblem& problem : std::as_const(m_found)) {
        if (problem.kind != HealthProblem::Kind::ImageMissing)
            return;
    }
    m_found.prepend(engineProblem(*m_runtime, detail, missing));
}

void EngineHealthCheck::finishOne()
{
    if (--m_pending > 0)
        return;
    m_pending = 0;
    // With the engine broken, what it said of the images means nothing.
    if (!m_found.isEmpty() && m_found.first().kind != HealthProblem::Kind::ImageMissing)
        m_found.erase(m_found.begin() + 1, m_found.end());
    m_problems = m_found;
    Q_EMIT finished(m_problems);
}

} // namespace csm
