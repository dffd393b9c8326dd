#pragma once

#include "runtime/EngineJob.h"
#include "runtime/Language.h"

#include <QObject>
#include <QString>

#include <memory>

namespace csm {

class ContainerRuntime;

// The commands the app runs on the engine's images, one at a time: build a language's default
// image (the offline builder containers/build-images, or its Dockerfile), build from a
// Dockerfile, pull, remove, and test an image with a one-liner. Each runs as an EngineJob: the
// window stays responsive, and cancel() stops a long one. What a command prints comes out line
// by line (logged()), after its command line and before how it ended. The Images page shows
// them, and the first-run setup builds the missing images with the same object.
class ImageOperations final : public QObject
{
    Q_OBJECT

public:
    // How the default images are built.
    enum class BuildMethod
    {
        OfflineBuilder, // containers/build-images: Debian packages only, no registry
        Dockerfile,     // containers/Dockerfile.*: needs Docker Hub and PyPI / npm
    };

    // How long a cancelled command has to stop after SIGTERM before it is killed.
    static constexpr int kCancelGraceMs = EngineJob::kCancelGraceMs;

    explicit ImageOperations(QObject* parent = nullptr);
    ~ImageOperations() override;

    // The engine the commands go to; set again when the settings name another (a command
    // running keeps the one it started with).
    void setRuntime(std::shared_ptr<const ContainerRuntime> runtime);
    // How buildDefaultImage() builds (the Images page's choice), and whether it builds an image
    // the engine has already.
    void setBuildMethod(BuildMethod method) { m_method = method; }
    void setRebuild(bool rebuild) { m_rebuild = rebuild; }

    // Whether a command is running.
    bool isBusy() const { return m_job != nullptr; }
    // The running command's process id, 0 when there is none.
    qint64 processId() const;

public Q_SLOTS:
    void buildDefaultImage(Language language);
    // `ENGINE build --file dockerfile --tag tag contextDir`.
    void buildFromDockerfile(const QString& dockerfile, const QString& tag,
                             const QString& contextDir);
    void pull(const QString& image);
    void remove(const QString& image);
    // Runs a one-liner in `image` with `language`'s interpreter; logs its output and time.
    void test(const QString& image, Language language);
    void cancel();

Q_SIGNALS:
    // A command started (true) or ended.
    void busyChanged(bool busy);
    // A line for the log.
    void logged(const QString& text);
    // A command ended: `ok` when it exited with 0 (a cancelled one never is). `imagesChanged`:
    // it may have changed the engine's images (anything but a test).
    void finished(bool ok, bool imagesChanged);

private:
    enum class Operation
    {
        Build,
        Pull,
        Remove,
        Test,
    };

    // `subject`: what the command is about, for the log's last line.
    void start(Operation operation, const QString& subject, EngineJob::Command command);
    void onFinished();
    // How the job ended, for the log.
    void logEnding(const EngineJob& job);

    std::shared_ptr<const ContainerRuntime> m_runtime;
    // The engine of the command running.
    std::shared_ptr<const ContainerRuntime> m_jobRuntime;
    BuildMethod m_method = BuildMethod::OfflineBuilder;
    bool m_rebuild = false;
    // The command running: one at a time.
    EngineJob* m_job = nullptr;
    Operation m_operation = Operation::Build;
    QString m_subject;
};

} // namespace csm
