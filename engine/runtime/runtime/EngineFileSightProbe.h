#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <memory>

class QProcess;
class QTemporaryDir;

namespace csm {

class ContainerRuntime;

// Asks an engine whether its containers see this machine's files, which a sandbox on a local
// engine is given by bind mounts (the launcher, the egress and pool folders under the temporary
// folder). The shape of the engine's address cannot tell: a Unix socket may lead into a VM
// (Rancher Desktop, Colima), another mount namespace or, forwarded, another machine; a TCP
// address may be this machine's own daemon. So a container of `image` mounts a fresh folder of
// this machine's temporary folder and the launcher, and prints the folder's marker: a random
// token, which no other machine has.
//
// Asynchronous: a server answers its client while the engine is asked (a client may give a
// server about a second to start). Each step (an image check, a run) gets at most `timeoutMs`;
// an engine that hangs is not asked.
class EngineFileSightProbe final : public QObject
{
    Q_OBJECT

public:
    enum class Answer
    {
        Sees,
        DoesNotSee,
        Unknown, // the engine could not be asked: it did not answer, or the image is missing
    };
    struct Result
    {
        Answer answer = Answer::Unknown;
        // What happened, in a few words, for doctor.
        QString detail;
    };

    // `image`: what the probe's container runs (the sandbox's); `launcher`: this machine's
    // launcher, which the probe mounts as a sandbox would. The runtime outlives the probe.
    EngineFileSightProbe(const ContainerRuntime& runtime, QString image, QString launcher,
                         int timeoutMs = 15'000, QObject* parent = nullptr);
    // A step still running is killed.
    ~EngineFileSightProbe() override;

    // answered() follows once, perhaps before start() returns.
    void start();

    // start() and wait for the answer in an event loop of its own: for commands (doctor), never
    // for a server that serves meanwhile.
    static Result ask(const ContainerRuntime& runtime, const QString& image,
                      const QString& launcher, int timeoutMs = 15'000);

    // Reads the run's end: the marker printed, or the engine's refusal to mount the folder or
    // the launcher (`paths`: both, as given to it), or something else.
    static Result interpret(int exitCode, const QByteArray& standardOutput,
                            const QByteArray& standardError, const QByteArray& token,
                            const QStringList& paths);

Q_SIGNALS:
    void answered(const csm::EngineFileSightProbe::Result& result);

private:
    // One engine command; `then` gets its exit code, or nothing when it did not start or end in
    // time (m_stepError says why).
    void runStep(const QStringList& arguments, void (EngineFileSightProbe::*then)(int exitCode));
    void onImageChecked(int exitCode);
    void onRunEnded(int exitCode);
    void onStepFailed();
    void finish(Result result);

    const ContainerRuntime& m_runtime;
    QString m_image;
    QString m_launcher;
    int m_timeoutMs;
    QProcess* m_step = nullptr;
    QByteArray m_stepOutput;
    QByteArray m_stepError;
    QTimer m_stepTimeout;
    std::unique_ptr<QTemporaryDir> m_folder;
    QByteArray m_token;
    bool m_answered = false;
};

} // namespace csm
