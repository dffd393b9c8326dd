#pragma once

#include "runtime/HealthProblem.h"

#include <QFrame>
#include <QList>

class QLabel;
class QPushButton;
class QVBoxLayout;

namespace csm {

class EngineHealthCheck;
class FileContentWatcher;

// A strip at the top of the main window, shown only while something keeps sandboxes from
// running: the engine is missing or not answering, or a language's image is not there. Each
// problem comes with its fix: a button (Build, which the window hands to the Images page; Pull)
// or the command to run. Checks again when the settings change and on recheck().
class HealthBanner final : public QFrame
{
    Q_OBJECT

public:
    // `dataDir`: the folder of the shared settings (engine, each language's image).
    explicit HealthBanner(const QString& dataDir, QWidget* parent = nullptr);
    ~HealthBanner() override;

    // The problems shown (empty while all is well, or before the first check ends).
    const QList<HealthProblem>& problems() const { return m_problems; }
    // The text of the problems shown, one line each, with the commands that fix them.
    QString text() const;
    bool isChecking() const;

public Q_SLOTS:
    void recheck();

Q_SIGNALS:
    // The user asked for a language's default image to be built.
    void buildRequested(Language language);
    // The user asked for an image to be pulled.
    void pullRequested(const QString& image);
    // A check ended (the banner is shown or hidden by then).
    void checked();

private:
    void showProblems(const QList<HealthProblem>& problems);

    QString m_dataDir;
    EngineHealthCheck* m_check = nullptr;
    FileContentWatcher* m_settingsWatcher = nullptr;
    QWidget* m_rows = nullptr;
    QVBoxLayout* m_rowsLayout = nullptr;
    QPushButton* m_recheck = nullptr;
    QList<HealthProblem> m_problems;
    QList<QLabel*> m_labels;
};

} // namespace csm
