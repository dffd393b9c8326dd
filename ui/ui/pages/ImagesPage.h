#pragma once

#include "runtime/EngineJob.h"
#include "runtime/Language.h"

#include <QTimer>
#include <QWidget>

#include <memory>

class QAction;
class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QProcess;
class QPushButton;
class QTableView;
class QToolButton;

namespace csm {

class ContainerRuntime;
class FileContentWatcher;
class ImagesModel;

// The engine's local images: name, size, age, and which language runs in each. Builds the
// default images (the offline builder containers/build-images, or their Dockerfile), pulls,
// removes, tests an image with a one-liner, and chooses the image of a language (stored in the
// shared settings). Every engine command runs as an EngineJob the page watches: the window stays
// responsive, output streams into the log, and Cancel stops a long one.
class ImagesPage final : public QWidget
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
    // How long listing the images may take.
    static constexpr int kListTimeoutMs = 30'000;

    // `dataDir`: the folder of the shared settings (engine, each language's image).
    explicit ImagesPage(const QString& dataDir, QWidget* parent = nullptr);
    ~ImagesPage() override;

    // The engine the page drives ("podman", "docker").
    QString engineName() const;

    // Whether a command (build, pull, remove, test) is running; one at a time.
    bool isBusy() const { return m_job != nullptr; }
    // The running command's process id, 0 when there is none.
    qint64 operationProcessId() const;
    // Whether the image list is being read.
    bool isRefreshing() const { return m_listing != nullptr; }

public Q_SLOTS:
    // Reads the engine's images again.
    void refresh();
    // Builds `language`'s default image with the chosen method.
    void buildDefaultImage(Language language);
    // `ENGINE build --file dockerfile --tag tag contextDir`.
    void buildFromDockerfile(const QString& dockerfile, const QString& tag,
                             const QString& contextDir);
    void pull(const QString& image);
    // Removes `image` at once; removeSelected() asks first.
    void remove(const QString& image);
    void removeSelected();
    // Runs a one-liner in `image` with `language`'s interpreter and logs its output and time.
    void test(const QString& image, Language language);
    void testSelected();
    // Makes the selected image the one `language` runs in (the shared settings).
    void setSelectedAsDefault(Language language);
    void cancel();

Q_SIGNALS:
    // A command that may have changed the engine's images ended.
    void imagesChanged();
    // This page changed a language's image in the settings.
    void settingsChanged();
    // A command ended: `ok` when it exited with 0 (a cancelled one never is).
    void operationFinished(bool ok);
    // A line went into the log (the first-run setup shows a build's progress with it).
    void logged(const QString& text);

protected:
    // Images built or pulled in a terminal show up when the page is looked at again.
    void showEvent(QShowEvent* event) override;

private:
    enum class Operation
    {
        Build,
        Pull,
        Remove,
        Test,
    };

    void reloadSettings();
    void onListed();
    void updateDefaults();
    void updateButtons();
    QString selectedImage() const;
    Language languageForTest(const QString& image) const;
    void appendLog(const QString& text);
    void start(Operation operation, EngineJob::Command command);
    void onFinished();

    QString m_dataDir;
    std::unique_ptr<ContainerRuntime> m_runtime;
    QString m_engineSetting;
    FileContentWatcher* m_settingsWatcher = nullptr;
    ImagesModel* m_model = nullptr;
    QLabel* m_defaults = nullptr;
    QLabel* m_status = nullptr;
    QTableView* m_table = nullptr;
    QPushButton* m_buildPython = nullptr;
    QPushButton* m_buildJs = nullptr;
    QComboBox* m_method = nullptr;
    QCheckBox* m_force = nullptr;
    QPushButton* m_pull = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_test = nullptr;
    QToolButton* m_setDefault = nullptr;
    QAction* m_setDefaultPython = nullptr;
    QAction* m_setDefaultJs = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_refreshButton = nullptr;
    QPlainTextEdit* m_log = nullptr;

    QProcess* m_listing = nullptr;
    bool m_listAgain = false;
    QTimer m_listTimeout;

    // The command running (build, pull, remove, test): one at a time.
    EngineJob* m_job = nullptr;
    Operation m_operation = Operation::Build;
    QString m_operationSubject;
};

} // namespace csm
