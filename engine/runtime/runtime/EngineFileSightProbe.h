#pragma once

#include <QByteArray>
#include <QString>

namespace csm {

class ContainerRuntime;

// Asks an engine whether its containers see this machine's files, which a sandbox on a local
// engine is given by bind mounts (the launcher, the egress and pool folders under the temporary
// folder). The shape of the engine's address cannot tell: a Unix socket may lead into a VM
// (Rancher Desktop, Colima), another mount namespace or, forwarded, another machine; a TCP
// address may be this machine's own daemon. So a container of `image` mounts a fresh folder of
// this machine's temporary folder and the launcher, and prints the folder's marker: a random
// token, which no other machine has.
class EngineFileSightProbe final
{
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

    // Blocks until the engine answered, at most `timeoutMs` per step (an image check, a run): it
    // runs before a server answers its client, once per engine and address; an engine that
    // hangs is not asked.
    static Result ask(const ContainerRuntime& runtime, const QString& image,
                      const QString& launcher, int timeoutMs = 15'000);

    // Reads the run's end: the marker printed, or the engine's refusal to mount the folder or
    // the launcher (`paths`: both, as given to it), or something else.
    static Result interpret(int exitCode, const QByteArray& standardOutput,
                            const QByteArray& standardError, const QByteArray& token,
                            const QStringList& paths);
};

} // namespace csm
