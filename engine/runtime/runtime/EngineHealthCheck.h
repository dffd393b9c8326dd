#pragma once

#include "runtime/EngineChoice.h"
#include "runtime/HealthProblem.h"
#include "runtime/Language.h"

#include <QList>
#include <QObject>
#include <QString>

#include <memory>

class QProcess;

namespace csm {

class ContainerRuntime;

// Whether sandboxes can run: the engine is installed and answers, and each language's image is
// in its store. Asynchronous (one engine process per image, each with a time limit), so a UI
// thread can run it; a command-line tool waits for finished() in its event loop.
class EngineHealthCheck final : public QObject
{
    Q_OBJECT

public:
    // What is checked for one language.
    struct Image
    {
        Language language = Language::Python;
        QString reference; // as the engine is asked for it
        bool isDefault = false;
    };

    // How long the engine may take to answer one question.
    static constexpr int kTimeoutMs = 20'000;

    explicit EngineHealthCheck(QObject* parent = nullptr);
    ~EngineHealthCheck() override;

    // The images `choice` asks for: its image per language, else the locally built default.
    static QList<Image> imagesOf(const EngineChoice& choice, const ContainerRuntime& runtime);

    // Checks the engine `choice` names (RuntimeFactory decides when it names none) and the
    // images it asks for. A check still running is abandoned.
    void start(const EngineChoice& choice);
    // Checks `runtime` and `images`.
    void start(std::shared_ptr<const ContainerRuntime> runtime, const QList<Image>& images);

    bool isRunning() const { return m_pending > 0; }
    // The engine last checked ("podman"); empty before the first check or for an unknown name.
    QString engineName() const;
    // The outcome of the last finished check; empty when all is well.
    const QList<HealthProblem>& problems() const { return m_problems; }

Q_SIGNALS:
    void finished(const QList<HealthProblem>& problems);

private:
    void abandon();
    void checkImage(const Image& image);
    void onImageChecked(const Image& image, QProcess* process);
    void onEngineFailed(const QString& detail, bool missing);
    void finishOne();

    std::shared_ptr<const ContainerRuntime> m_runtime;
    QList<QProcess*> m_processes;
    QList<HealthProblem> m_found;
    QList<HealthProblem> m_problems;
    int m_pending = 0;
    quint64 m_generation = 0;
};

} // namespace csm
