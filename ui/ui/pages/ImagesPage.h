#pragma once

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
class ImageOperations;
class ImagesModel;

// The engine's local images: name, size, age, and which language runs in each. Builds the
// default images (the offline builder containers/build-images, or their Dockerfile), pulls,
// removes, tests an image with a one-liner, and chooses the image of a language (stored in the
// shared settings). The commands are `operations`' (ImageOperations), which the page drives and
// watches: their output streams into the log, and Cancel stops a long one.
class ImagesPage final : public QWidget
{
    Q_OBJECT

public:
    // How long listing the images may take.
    static constexpr int kListTimeoutMs = 30'000;

    // `dataDir`: the folder of the shared settings (engine, each language's image). The page
    // gives `operations` the engine the settings name.
    ImagesPage(const QString& dataDir, ImageOperations& operations, QWidget* parent = nullptr);
    ~ImagesPage() override;

    // The engine the page drives ("podman", "docker").
    QString engineName() const;
    // Whether the image list is being read.
    bool isRefreshing() const { return m_listing != nullptr; }

public Q_SLOTS:
    // Reads the engine's images again.
    void refresh();
    // Asks, then removes the selected image.
    void removeSelected();
    void testSelected();
    // Makes the selected image the one `language` runs in (the shared settings).
    void setSelectedAsDefault(Language language);

Q_SIGNALS:
    // A command that may have changed the engine's images ended.
    void imagesChanged();
    // This page changed a language's image in the settings.
    void settingsChanged();

protected:
    // Images built or pulled in a terminal show up when the page is looked at again.
    void showEvent(QShowEvent* event) override;

private:
    void reloadSettings();
    void onListed();
    void updateDefaults();
    void updateButtons();
    QString selectedImage() const;
    Language languageForTest(const QString& image) const;
    void appendLog(const QString& text);
    void onOperationFinished(bool imagesChanged);

    QString m_dataDir;
    ImageOperations& m_operations;
    // Shared with the operations, which may outlive the page.
    std::shared_ptr<ContainerRuntime> m_runtime;
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
};

} // namespace csm
