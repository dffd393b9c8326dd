#pragma once

#include "runtime/Language.h"
#include "runtime/SandboxPolicy.h"
#include "sandbox/SandboxSecrets.h"

#include <QString>

#include <functional>
#include <memory>

class QObject;

namespace csm {

class ContainerChannel;
class ContainerReaper;
class ContainerRuntime;
class EgressProxy;
class RunQueue;

// What one SandboxRun needs from whoever starts it, and nothing more: a container channel, what
// is known of images, the queue it waits in, and where it reports its start and end. SandboxRunner
// is the real one; a test drives a run on services of its own, without an engine.
class SandboxRunServices
{
public:
    virtual ~SandboxRunServices() = default;

    // The engine: its name and program for messages, its image check, what its stderr means.
    virtual const ContainerRuntime& runtime() const = 0;
    virtual const SandboxPolicy& policy() const = 0;
    // The cap on sandboxes running at once, in which the run waits for its turn.
    virtual RunQueue& queue() = 0;

    // Calls `ready` once a new container of `image` may start (at once when it may), unless
    // `context` is gone by then: the secrets it gets are settled, and a remote engine holds the
    // sandbox's files (or failed to: cannotStartReason() then says why).
    virtual void whenReadyToStart(QObject* context, const QString& image,
                                  std::function<void()> ready) = 0;
    // The secrets a container acquired now gets (never null).
    virtual std::shared_ptr<const SandboxSecrets> secrets() const = 0;
    // Empty when a container can be started; otherwise why not (the launcher or the seccomp
    // profile is missing), as the call's error.
    virtual QString cannotStartReason() const = 0;

    enum class Channel
    {
        Warm, // a container started ahead of time, or null when none is ready
        Cold, // a container started for this program alone
    };
    virtual ContainerChannel* acquireChannel(Channel kind, Language language, const QString& image,
                                             QObject* parent) = 0;

    // Whether `image` was seen present, so that only a first run pays for the check.
    virtual bool isImageKnownPresent(const QString& image) const = 0;
    virtual void setImageKnownPresent(const QString& image, bool present) = 0;

    // A cold start of `image` took `ms` until its program started (the warm pool weighs its
    // starting containers against it).
    virtual void reportColdStart(Language language, const QString& image, qint64 ms) = 0;
    // A run got its turn, and ended (the warm pool times its refills by them); `sessionCell`:
    // a cell of a live session, whose container lives on.
    virtual void runStarted(bool sessionCell) = 0;
    virtual void runEnded(bool sessionCell) = 0;
    // An engine warning the run found; logged once each.
    virtual void reportEngineWarning(const QString& warning) = 0;
    // Where channels and helper processes a run is done with finish on their own.
    virtual ContainerReaper& reaper() = 0;
    // The proxy that serves one run's connections (egress proxy mode), under the user's rules
    // as they are now; owned by `parent`. Null where there is none (a test's services).
    virtual EgressProxy* newEgressProxy(QObject* parent)
    {
        (void)parent;
        return nullptr;
    }
};

} // namespace csm
