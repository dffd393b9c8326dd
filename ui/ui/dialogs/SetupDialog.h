#pragma once

#include "runtime/HealthProblem.h"

#include <QDialog>
#include <QList>

class QLabel;
class QVBoxLayout;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace csm {

class HealthBanner;
class ImageOperations;

// The first run's guided setup. It says what keeps sandboxes from running (HealthBanner's
// check), fixes what the app can itself (builds the missing default images one after the
// other, with their progress and log; goes back to the default image where a chosen one is
// missing) and gives the command for what it cannot (installing or starting an engine needs
// root, and building an image the app failed to build is best retried in a terminal). Finishing
// or skipping it is remembered: it is offered once.
class SetupDialog final : public QDialog
{
    Q_OBJECT

public:
    SetupDialog(const QString& dataDir, HealthBanner& health, ImageOperations& images,
                QWidget* parent = nullptr);

    bool isBuilding() const { return !m_toBuild.isEmpty(); }

private:
    void showProblems();
    void buildMissingImages();
    void buildNext();
    void onBuildFinished(bool ok);
    void useDefaultImages();
    void finish(bool setupDone);
    void showLog();

    QString m_dataDir;
    HealthBanner& m_health;
    ImageOperations& m_images;
    QList<Language> m_toBuild; // the first is being built
    int m_built = 0;
    bool m_buildFailed = false;
    QLabel* m_problems = nullptr;
    QPushButton* m_build = nullptr;
    QPushButton* m_useDefaults = nullptr;
    QPushButton* m_checkAgain = nullptr;
    QProgressBar* m_progress = nullptr;
    QPlainTextEdit* m_log = nullptr;
    QVBoxLayout* m_layout = nullptr;
    QPushButton* m_finish = nullptr;
    QPushButton* m_skip = nullptr;
};

} // namespace csm
