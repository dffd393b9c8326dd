#include "sandbox/SandboxRunner.h"

#include "core/Logging.h"
#include "core/Version.h"
#include "runtime/ContainerLabels.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/ContainerSpec.h"
#include "runtime/EngineFileSightProbe.h"
#include "sandbox/ColdContainerChannel.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/EgressEndpoint.h"
#include "sandbox/EgressFolders.h"
#include "sandbox/InterpreterSession.h"
#include "sandbox/InterpreterSessions.h"
#include "sandbox/RunQueue.h"
#include "sandbox/RunRequest.h"
#include "sandbox/SandboxFilesLocator.h"
#include "sandbox/SandboxFilesVolume.h"
#include "sandbox/SandboxRun.h"
#include "sandbox/WarmContainerChannel.h"
#include "sandbox/WarmPool.h"

#include <QCoreApplication>
#include <QDir>
#include <QNetworkInterface>
#include <QRandomGenerator>
#include <QSysInfo>

#include <utility>

namespace csm {

namespace {
QString randomInstanceId()
{
    return QString::number(QRandomGenerator::system()->generate64(), 36).left(10);
}
} // namespace

SandboxRunner::SandboxRunner(std::unique_ptr<ContainerRuntime> runtime, SandboxPolicy policy,
                             SandboxFiles files, QObject* parent)
    : QObject(parent)
    , m_runtime(std::move(runtime))
    , m_policy(std::move(policy))
    , m_files(std::move(files))
    , m_instanceId(randomInstanceId())
    , m_reaper(new ContainerReaper(*m_runtime, this))
    , m_queue(new RunQueue({RunQueue::defaultMaxRunning(m_policy.memoryBytes)}, this))
    , m_interpreters(new InterpreterSessions(*this, this))
{
    followEngineLocation();
}

void SandboxRunner::followEngineLocation()
{
    const bool remote = m_runtime->isRemote() && m_files.isComplete();
    if (!remote) {
        // Placed remote by its address, found local by asking: nothing was put there yet (runs
        // waited for the answer).
        if (m_filesVolume) {
            delete std::exchange(m_filesVolume, nullptr);
            m_files.volume.clear();
        }
        return;
    }
    if (m_filesVolume)
        return;
    // No host folder reaches a remote engine's containers: the launcher goes into a volume of
    // the engine's, filled before the first container starts.
    ContainerSpec sample = makeSpec(Language::Python, {});
    sample.labels.remove(QLatin1String(ContainerLabels::kLanguage));
    m_filesVolume = new SandboxFilesVolume(*m_runtime, m_files, sample.labels, this);
    m_files.volume = m_filesVolume->name();
    connect(m_filesVolume, &SandboxFilesVolume::finished, this, [this] {
        if (!m_filesVolume->isFilled())
            return;
        if (const QString profile = m_filesVolume->seccompProfileOnEngine(); !profile.isEmpty())
            m_files.seccompProfile = profile;
        if (m_pool)
            m_pool->refill();
    });
}

SandboxRunner::~SandboxRunner()
{
    // The sessions' and the pool's containers go to the reaper, and the reaper uses the
    // runtime: they go first, in that order, not with the other children after m_runtime (nor
    // does the files volume, which uses it too, nor a probe still asking it).
    delete m_locationProbe;
    delete m_interpreters;
    delete m_pool;
    delete m_reaper;
    delete m_filesVolume;
}

void SandboxRunner::setImageKnownPresent(const QString& image, bool present)
{
    if (present)
        m_presentImages.insert(image);
    else
        m_presentImages.remove(image);
}

ContainerSpec SandboxRunner::makeSpec(Language language, const QString& image)
{
    ContainerSpec spec;
    spec.name = QStringLiteral("code-sandbox-%1-%2").arg(m_instanceId).arg(m_nextContainer++);
    spec.image = image;
    spec.files = m_files;
    spec.command = LanguageTraits::interpreterCommand(language);
    spec.policy = m_policy;
    spec.policy.network = m_egress.engineNetwork();
    // The runtime reads the one tier: this language's image's.
    spec.policy.isolation = m_policy.isolationFor(language);
    spec.policy.pythonIsolation.reset();
    spec.policy.jsIsolation.reset();
    spec.secretVariables = m_secrets->variables();
    // The root filesystem is read-only: tools that write to $HOME (matplotlib, npm) need a
    // writable one.
    spec.environment.insert(QStringLiteral("HOME"), QStringLiteral("/tmp"));
    // What StaleContainerSweeper reads to find the containers of a server that died.
    spec.labels = {
        {QLatin1String(ContainerLabels::kApp), QString::fromLatin1(kApplicationName)},
        {QLatin1String(ContainerLabels::kInstance), m_instanceId},
        {QLatin1String(ContainerLabels::kPid), QString::number(QCoreApplication::applicationPid())},
        {QLatin1String(ContainerLabels::kHost), QSysInfo::machineHostName()},
        {QLatin1String(ContainerLabels::kLanguage), LanguageTraits::id(language)},
    };
    return spec;
}

WarmContainerChannel* SandboxRunner::newWarmChannel(ContainerSpec spec, QObject* parent)
{
    EgressEndpoint* egress = attachEgress(spec);
    auto* channel = new WarmContainerChannel(*m_runtime, std::move(spec), m_secrets, parent);
    channel->setEgressEndpoint(egress);
    return channel;
}

int SandboxRunner::maxRunning() const
{
    return m_queue->limits().maxRunning;
}

bool SandboxRunner::containersSeeThisMachine() const
{
    return !m_runtime->isRemote();
}

void SandboxRunner::reportEngineWarning(const QString& warning)
{
    if (m_engineWarnings.contains(warning))
        return;
    m_engineWarnings.insert(warning);
    qCWarning(lcSandbox).noquote()
        << "engine warning from" << m_runtime->name() << "(said once):" << warning;
}

void SandboxRunner::locateEngine(EngineLocationChoice choice, const QString& probeImage,
                                 const EngineLocationFinder& finder)
{
    if (const std::optional<EngineLocation> known = finder.known(*m_runtime, choice)) {
        m_runtime->setLocation(*known);
        followEngineLocation();
        return;
    }
    m_holds |= kHeldForEngineLocation;
    delete m_locationProbe;
    m_locationProbe =
        new EngineFileSightProbe(*m_runtime, probeImage, m_files.launcher, 15'000, this);
    connect(m_locationProbe, &EngineFileSightProbe::answered, this,
            [this, finder, probeImage](const EngineFileSightProbe::Result& answer) {
                m_runtime->setLocation(finder.located(*m_runtime, answer));
                m_locationProbe->deleteLater();
                m_locationProbe = nullptr;
                followEngineLocation();
                // The pool's containers wait for the launcher on a remote engine: it goes there
                // now, as warm() sends it at start (the probe's image is the sandbox's).
                if (m_filesVolume && m_pool)
                    m_filesVolume->fill(probeImage);
                release(kHeldForEngineLocation);
            });
    m_locationProbe->start();
}

void SandboxRunner::holdForSecrets()
{
    m_holds |= kHeldForSecrets;
}

void SandboxRunner::release(unsigned hold)
{
    if (!(m_holds & hold))
        return;
    m_holds &= ~hold;
    if (m_holds != 0)
        return;
    if (m_pool)
        m_pool->refill();
    Q_EMIT holdsEnded();
}

void SandboxRunner::setSecrets(std::shared_ptr<const SandboxSecrets> secrets)
{
    if (!secrets)
        secrets = SandboxSecrets::none();
    const bool changed = !secrets->sameAs(*m_secrets);
    m_secrets = std::move(secrets);
    if (changed) {
        if (m_pool)
            m_pool->renew();
        m_interpreters->loseAll(QStringLiteral("the secrets that sandboxes get changed"));
    }
    release(kHeldForSecrets);
}

void SandboxRunner::setPolicy(const SandboxPolicy& policy)
{
    if (policy == m_policy)
        return;
    SandboxPolicy next = policy;
    // A reload reads each share's path again, and would follow a link put in place of the
    // folder: a share whose folder was replaced keeps failing its check under its name until
    // the user removes it (or the server starts again), whatever the path resolves to now.
    for (SharedFolder& folder : next.sharedFolders) {
        for (const SharedFolder& before : std::as_const(m_policy.sharedFolders)) {
            if (before.name == folder.name && before.hostPath != folder.hostPath &&
                !before.identity.changeNow().isEmpty()) {
                qCWarning(lcSandbox).noquote()
                    << "shared folder" << folder.name << "now resolves to" << folder.hostPath
                    << "but its folder was replaced: it stays refused";
                folder = before;
            }
        }
    }
    m_policy = next;
    if (m_pool)
        m_pool->renew();
    m_interpreters->loseAll(QStringLiteral("the sandboxes' limits or shared folders changed"));
}

void SandboxRunner::setEgress(const EgressSettings& egress)
{
    if (egress == m_egress)
        return;
    // Hosts and answers are read by each run's proxy; only a change of the containers' own
    // network (none, the proxy, the bridge) makes pooled containers outdated.
    const bool containersChange = egress.throughProxy() != m_egress.throughProxy() ||
                                  egress.engineNetwork() != m_egress.engineNetwork();
    m_egress = egress;
    if (containersChange) {
        if (m_pool)
            m_pool->renew();
        m_interpreters->loseAll(QStringLiteral("the sandboxes' network setting changed"));
    }
}

EgressEndpoint* SandboxRunner::attachEgress(ContainerSpec& spec)
{
    if (!m_egress.throughProxy())
        return nullptr;
    if (!m_egressRoot)
        m_egressRoot = EgressFolders::makeRoot(QDir::tempPath());
    if (!m_egressRoot->isValid()) {
        qCWarning(lcSandbox).noquote()
            << "no folder for the sandboxes' egress proxy:" << m_egressRoot->errorString()
            << "- they have no network";
        return nullptr;
    }
    auto* endpoint = new EgressEndpoint(m_egressRoot->filePath(spec.name));
    if (!endpoint->error().isEmpty()) {
        qCWarning(lcSandbox).noquote()
            << "the egress proxy of" << spec.name << "failed:" << endpoint->error()
            << "- that sandbox has no network";
        delete endpoint;
        return nullptr;
    }
    // A remote engine's container cannot mount the folder: the endpoint is reached through the
    // engine instead (EgressCarrier), and Node's preload is in the files volume.
    if (m_runtime->isRemote()) {
        endpoint->carryFrom(*m_runtime, spec.name);
        spec.egressCarried = true;
    } else {
        spec.egressDirectory = endpoint->folder();
    }
    return endpoint;
}

EgressProxy* SandboxRunner::newEgressProxy(QObject* parent)
{
    if (!m_egress.throughProxy())
        return nullptr;
    EgressPolicy policy(m_egress.mode, m_egress.allowedHosts, &QNetworkInterface::allAddresses,
                        m_egress.alwaysAllowed);
    auto* proxy = new EgressProxy(std::move(policy), m_egressLimits, parent);
    if (m_egressAsker)
        proxy->setAsker(m_egressAsker);
    return proxy;
}

void SandboxRunner::enablePool(int sizePerImage, int idleTimeoutMs)
{
    delete m_pool;
    m_pool = sizePerImage > 0 ? new WarmPool(*this, sizePerImage, idleTimeoutMs, this) : nullptr;
}

void SandboxRunner::warm(Language language, const QString& image)
{
    if (!m_pool || !m_files.isComplete())
        return;
    // Not before the engine is located: it may turn out to see this machine's files.
    if (m_filesVolume && !isLocatingEngine())
        m_filesVolume->fill(image);
    m_pool->warm(language, image);
}

ContainerChannel* SandboxRunner::acquireChannel(Channel kind, Language language,
                                                const QString& image, QObject* parent)
{
    if (kind == Channel::Warm)
        return m_pool ? m_pool->take(language, image, parent) : nullptr;
    ContainerSpec spec = makeSpec(language, image);
    EgressEndpoint* egress = attachEgress(spec);
    auto* channel = new ColdContainerChannel(*m_runtime, spec, m_secrets, parent);
    channel->setEgressEndpoint(egress);
    return channel;
}

void SandboxRunner::whenReadyToStart(QObject* context, const QString& image,
                                     std::function<void()> ready)
{
    if (m_holds != 0) {
        connect(
            this, &SandboxRunner::holdsEnded, context,
            [this, context, image, ready = std::move(ready)]() mutable {
                whenReadyToStart(context, image, std::move(ready));
            },
            Qt::SingleShotConnection);
        return;
    }
    if (m_filesVolume && !m_filesVolume->isFilled() && remoteEngineProblem().isEmpty()) {
        // A failed fill is tried again by the next run: the engine may be back.
        m_filesVolume->fill(image);
        if (m_filesVolume->isFilling()) {
            connect(m_filesVolume, &SandboxFilesVolume::finished, context, std::move(ready),
                    Qt::SingleShotConnection);
            return;
        }
    }
    ready();
}

QString SandboxRunner::cannotStartReason() const
{
    if (!m_files.isComplete())
        return SandboxFilesLocator::missingMessage(m_files);
    if (const QString problem = remoteEngineProblem(); !problem.isEmpty())
        return problem;
    if (const QString problem = sharedFolderProblem(); !problem.isEmpty())
        return problem;
    if (m_filesVolume && !m_filesVolume->isFilled()) {
        switch (m_filesVolume->failure()) {
        case SandboxFilesVolume::Failure::EngineNotStarted:
            return m_filesVolume->error();
        case SandboxFilesVolume::Failure::Filler:
            // Most likely the image is missing (the engine's words say so).
            return QStringLiteral("The sandbox's launcher could not be put on the %1 engine (%2): "
                                  "%3. If the image is missing, build the default images there "
                                  "with `containers/build-images --engine %1` (with the same "
                                  "DOCKER_HOST or CONTAINER_HOST), or choose another image.")
                .arg(m_runtime->name(), m_runtime->location().address, m_filesVolume->error());
        case SandboxFilesVolume::Failure::None:
        case SandboxFilesVolume::Failure::Other:
            break;
        }
        const QString why = m_filesVolume->error();
        return QStringLiteral("The sandbox's launcher is not on the %1 engine (%2) yet%3")
            .arg(m_runtime->name(), m_runtime->location().address,
                 why.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + why);
    }
    return {};
}

QString SandboxRunner::remoteEngineProblem() const
{
    if (!m_runtime->isRemote())
        return {};
    const QString where = m_runtime->location().address.isEmpty()
                              ? QStringLiteral("the remote %1 engine").arg(m_runtime->name())
                              : QStringLiteral("the %1 engine at %2")
                                    .arg(m_runtime->name(), m_runtime->location().address);
    if (!m_policy.sharedFolders.isEmpty()) {
        return QStringLiteral("Shared folders are folders of this machine, which %1 cannot "
                              "mount: remove them from the settings (--share), or use a local "
                              "engine.")
            .arg(where);
    }
    return {};
}

QString SandboxRunner::sharedFolderProblem() const
{
    // The engine resolves each share's path again as it starts a container: a path that names
    // another folder now would be mounted in its place.
    for (const SharedFolder& folder : m_policy.sharedFolders) {
        const QString change = folder.identity.changeNow();
        if (change.isEmpty())
            continue;
        qCWarning(lcSandbox).noquote()
            << "shared folder" << folder.name << "changed since it was shared:" << change;
        return QStringLiteral("The shared folder %1 is not the folder it was when it was shared "
                              "(%2), so no sandbox starts with it: it could now be any folder of "
                              "this machine. Check what changed it, then remove the share and add "
                              "it again (--share or the settings), or start the server again.")
            .arg(folder.mountPoint(), change);
    }
    return {};
}

void SandboxRunner::reportColdStart(Language language, const QString& image, qint64 ms)
{
    if (m_pool)
        m_pool->noteColdStart(language, image, ms);
}

void SandboxRunner::runStarted(bool sessionCell)
{
    m_oneShotsRunning += sessionCell ? 0 : 1;
    if (m_pool)
        m_pool->callStarted();
}

void SandboxRunner::runEnded(bool sessionCell)
{
    m_oneShotsRunning -= sessionCell ? 0 : 1;
    if (m_pool)
        m_pool->callEnded();
}

void SandboxRunner::shutdown()
{
    if (m_pool)
        m_pool->shutdown();
    m_reaper->drain();
}

InterpreterSession* SandboxRunner::startSession(Language language, const QString& image,
                                                QObject* parent)
{
    ContainerSpec spec = makeSpec(language, image);
    spec.command = LanguageTraits::sessionCommand(language);
    if (spec.command.isEmpty())
        return nullptr;
    spec.session = true;
    // Its container mounts the shares as they are now: never one that names another folder.
    if (const QString problem = sharedFolderProblem(); !problem.isEmpty()) {
        auto* refused = new InterpreterSession(*m_runtime, spec.name, m_secrets, *m_reaper, parent);
        refused->end(problem);
        return refused;
    }
    if (m_pool && m_files.isComplete()) {
        // One waits once an earlier session of this image was asked for (and the pool kept
        // it, within its idle time); from now on, a session's container of it is kept waiting.
        WarmContainerChannel* pooled =
            m_pool->take(language, image, nullptr, WarmPool::Kind::Session);
        m_pool->warm(language, image, WarmPool::Kind::Session);
        if (pooled) {
            auto* session = new InterpreterSession(*m_runtime, pooled->containerName(),
                                                   pooled->secrets(), *m_reaper, parent);
            session->start(pooled, pooled->isReady());
            return session;
        }
    }
    auto* session = new InterpreterSession(*m_runtime, spec.name, m_secrets, *m_reaper, parent);
    auto startCold = [this, session, spec]() mutable {
        spec.files = m_files; // on a remote engine, its copy of the launcher
        EgressEndpoint* egress = attachEgress(spec);
        auto* channel = new ColdContainerChannel(*m_runtime, spec, session->secrets());
        channel->setEgressEndpoint(egress);
        session->start(channel, false);
    };
    // Once the secrets are read and the engine located, and on a remote engine's first session,
    // once the engine holds the launcher.
    whenReadyToStart(session, image, startCold);
    return session;
}

SandboxRun* SandboxRunner::start(const RunRequest& request, QObject* parent)
{
    InterpreterSession* session =
        request.interpreterName.isEmpty()
            ? nullptr
            : m_interpreters->find(request.interpreterOwner, request.interpreterName);
    auto* run = new SandboxRun(*this, request, session, parent);
    run->start();
    return run;
}

} // namespace csm
