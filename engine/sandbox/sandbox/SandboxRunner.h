#pragma once

#include "egress/EgressProxy.h"
#include "egress/EgressSettings.h"
#include "runtime/ContainerSpec.h"
#include "runtime/EngineLocationChoice.h"
#include "runtime/EngineLocationFinder.h"
#include "runtime/Language.h"
#include "runtime/SandboxFiles.h"
#include "runtime/SandboxPolicy.h"
#include "sandbox/InterpreterSessionSource.h"
#include "sandbox/SandboxRunServices.h"
#include "sandbox/SandboxSecrets.h"
#include "sandbox/WarmContainerSource.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>

namespace csm {

class ContainerReaper;
class InterpreterSessions;
class RunQueue;
class ContainerRuntime;
class SandboxRun;
class InterpreterSession;
class SandboxFilesVolume;
class ContainerChannel;
class EgressEndpoint;
class WarmPool;
struct RunRequest;

// Starts sandbox runs on one container engine under one policy and one set of secrets, and
// remembers which images it has seen present so that only the first run of an image pays for
// the check.
class SandboxRunner final : public QObject,
                            public SandboxRunServices,
                            public WarmContainerSource,
                            public InterpreterSessionSource
{
    Q_OBJECT

public:
    // `files`: the launcher and the seccomp profile on the host (SandboxFilesLocator::find());
    // when one is missing every run fails with a clear message.
    SandboxRunner(std::unique_ptr<ContainerRuntime> runtime, SandboxPolicy policy,
                  SandboxFiles files, QObject* parent = nullptr);
    ~SandboxRunner() override;

    // Settles where the engine runs its containers (EngineLocationFinder), which decides what
    // a sandbox is given by bind mounts and what through the engine. When the engine must be
    // asked (EngineFileSightProbe: a container of `probeImage`), runs wait for the answer and
    // the pool starts nothing meanwhile, while the server answers its clients.
    void locateEngine(EngineLocationChoice choice, const QString& probeImage,
                      const EngineLocationFinder& finder = EngineLocationFinder());
    bool isLocatingEngine() const { return m_holds & kHeldForEngineLocation; }

    // The run starts at once; it emits SandboxRun::finished() later, from the event loop. A
    // cell (request.interpreterName) runs in the session interpreters().prepare() made.
    SandboxRun* start(const RunRequest& request, QObject* parent);

    // The persistent interpreter sessions of this runner's clients.
    InterpreterSessions& interpreters() const { return *m_interpreters; }
    InterpreterSession* startSession(Language language, const QString& image,
                                     QObject* parent) override;
    qint64 sandboxMemoryBytes() const override { return m_policy.memoryBytes; }

    // Keeps `sizePerImage` containers of each warmed image started ahead of calls; 0 disables.
    void enablePool(int sizePerImage, int idleTimeoutMs);
    void warm(Language language, const QString& image);
    WarmPool* pool() const { return m_pool; }
    // The cap on sandboxes running programs at once, and the calls waiting for one.
    RunQueue& queue() override { return *m_queue; }
    const RunQueue& queue() const { return *m_queue; }
    ContainerChannel* acquireChannel(Channel kind, Language language, const QString& image,
                                     QObject* parent) override;
    ContainerSpec makeSpec(Language language, const QString& image) override;
    WarmContainerChannel* newWarmChannel(ContainerSpec spec, QObject* parent) override;
    int maxRunning() const override;
    bool containersSeeThisMachine() const override;
    // In egress proxy mode, the host's end of `spec`'s network (owned by the caller, which
    // gives it to the container's channel), with spec.egressDirectory (a local engine) or
    // spec.egressCarried (a remote one) set; else null.
    EgressEndpoint* attachEgress(ContainerSpec& spec);
    EgressProxy* newEgressProxy(QObject* parent) override;
    void reportColdStart(Language language, const QString& image, qint64 ms) override;
    void runStarted(bool sessionCell) override;
    void runEnded(bool sessionCell) override;
    // One-shot runs that hold their sandbox now (session cells not counted: their session is).
    int oneShotsRunning() const override { return m_oneShotsRunning; }
    // Stops the pool and removes every container left; reaper().drained() follows.
    void shutdown();

    const ContainerRuntime& runtime() const override { return *m_runtime; }
    const SandboxPolicy& policy() const override { return m_policy; }
    // The policy of containers started from now on (the user's settings changed). Waiting
    // containers of the pool, started under the old one, are replaced, and live sessions end.
    void setPolicy(const SandboxPolicy& policy);
    // How sandboxes reach the network (--egress, --allow-host); as setPolicy(). The container's
    // engine network follows from the mode (EgressSettings::engineNetwork), whatever the
    // policy says.
    void setEgress(const EgressSettings& egress);
    const EgressSettings& egress() const { return m_egress; }
    void setEgressLimits(const EgressProxy::Limits& limits) { m_egressLimits = limits; }
    // Asks the person about a host (ask mode); without one, ask mode refuses what it would ask.
    void setEgressAsker(EgressProxy::Asker asker) { m_egressAsker = std::move(asker); }
    // The secrets every new container gets (never null; none at first).
    std::shared_ptr<const SandboxSecrets> secrets() const override { return m_secrets; }
    // While the secrets are being (re)read, runs that start wait for them (holdsEnded()),
    // so that a changed secret applies to the next run, and the pool starts no container.
    void holdForSecrets();
    bool isHeldForSecrets() const { return m_holds & kHeldForSecrets; }
    void whenReadyToStart(QObject* context, const QString& image,
                          std::function<void()> ready) override;
    bool canStartContainers() const override
    {
        return m_holds == 0 && cannotStartReason().isEmpty();
    }
    // The secrets from now on; ends a hold. Waiting containers of the pool that hold other
    // values are replaced, and live sessions end.
    void setSecrets(std::shared_ptr<const SandboxSecrets> secrets);
    const SandboxFiles& files() const { return m_files; }
    QString cannotStartReason() const override;
    // Where finished runs leave their engine clients to exit, and where shutdown waits.
    ContainerReaper& reaper() override { return *m_reaper; }
    // Random per server process; names and labels its containers.
    QString instanceId() const { return m_instanceId; }

    // Logs an engine warning the first time this runner sees it (every run would repeat it).
    void reportEngineWarning(const QString& warning) override;

    bool isImageKnownPresent(const QString& image) const override
    {
        return m_presentImages.contains(image);
    }
    void setImageKnownPresent(const QString& image, bool present) override;

Q_SIGNALS:
    // The last hold ended (the secrets read, the engine located): containers may start.
    void holdsEnded();

private:
    static constexpr unsigned kHeldForSecrets = 1;
    static constexpr unsigned kHeldForEngineLocation = 2;

    void release(unsigned hold);
    // A remote engine gets the launcher through a volume of its own (SandboxFilesVolume); a
    // local one through a bind mount of this machine's file.
    void followEngineLocation();
    // What a remote engine cannot do that the settings ask for; empty when nothing.
    QString remoteEngineProblem() const;
    // A shared folder whose path names another folder than when it was shared; else empty.
    QString sharedFolderProblem() const;

    std::unique_ptr<ContainerRuntime> m_runtime;
    SandboxPolicy m_policy;
    EgressSettings m_egress;
    EgressProxy::Limits m_egressLimits;
    EgressProxy::Asker m_egressAsker;
    // Where the containers' egress folders live (made on first use).
    std::unique_ptr<QTemporaryDir> m_egressRoot;
    std::shared_ptr<const SandboxSecrets> m_secrets = SandboxSecrets::none();
    unsigned m_holds = 0;
    EngineFileSightProbe* m_locationProbe = nullptr;
    SandboxFiles m_files;
    // A remote engine's copy of the launcher (null for a local engine).
    SandboxFilesVolume* m_filesVolume = nullptr;
    QString m_instanceId;
    ContainerReaper* m_reaper = nullptr;
    RunQueue* m_queue = nullptr;
    InterpreterSessions* m_interpreters = nullptr;
    WarmPool* m_pool = nullptr;
    int m_oneShotsRunning = 0;
    quint64 m_nextContainer = 1;
    QSet<QString> m_presentImages;
    QSet<QString> m_engineWarnings;
};

} // namespace csm
