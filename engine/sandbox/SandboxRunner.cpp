#include "sandbox/SandboxRunner.h"

#include "core/Version.h"
#include "runtime/ContainerLabels.h"
#include "runtime/ContainerRuntime.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/ContainerSpec.h"
#include "sandbox/RunRequest.h"
#include "sandbox/SandboxRun.h"

#include <QCoreApplication>
#include <QRandomGenerator>
#include <QSysInfo>

namespace csm {

namespace {
QString randomInstanceId()
{
    return QString::number(QRandomGenerator::system()->generate64(), 36).left(10);
}
} // namespace

SandboxRunner::SandboxRunner(std::unique_ptr<ContainerRuntime> runtime, SandboxPolicy policy,
                             QStringList passThroughEnvironment, QString launcherPath,
                             QObject* parent)
    : QObject(parent)
    , m_runtime(std::move(runtime))
    , m_policy(std::move(policy))
    , m_passThrough(std::move(passThroughEnvironment))
    , m_launcherPath(std::move(launcherPath))
    , m_instanceId(randomInstanceId())
    , m_reaper(new ContainerReaper(*m_runtime, this))
{}

SandboxRunner::~SandboxRunner()
{
    // The reaper uses the runtime: it goes first, not with the other children after m_runtime.
    delete m_reaper;
}

void SandboxRunner::setImageKnownPresent(const QString& image, bool present)
{
    if (present)
        m_presentImages.insert(image);
    else
        m_presentImages.remove(image);
}

SandboxRun* SandboxRunner::start(const RunRequest& request, QObject* parent)
{
    ContainerSpec spec;
    spec.name = QStringLiteral("code-sandbox-%1-%2").arg(m_instanceId).arg(m_nextRun++);
    spec.image = request.image;
    spec.launcherPath = m_launcherPath;
    spec.command = LanguageTraits::interpreterCommand(request.language);
    spec.policy = m_policy;
    spec.environmentNames = m_passThrough;
    // The root filesystem is read-only: tools that write to $HOME (matplotlib, npm) need a
    // writable one.
    spec.environment.insert(QStringLiteral("HOME"), QStringLiteral("/tmp"));
    // What StaleContainerSweeper reads to find the containers of a server that died.
    spec.labels = {
        {QLatin1String(ContainerLabels::kApp), QString::fromLatin1(kApplicationName)},
        {QLatin1String(ContainerLabels::kInstance), m_instanceId},
        {QLatin1String(ContainerLabels::kPid), QString::number(QCoreApplication::applicationPid())},
        {QLatin1String(ContainerLabels::kHost), QSysInfo::machineHostName()},
        {QLatin1String(ContainerLabels::kLanguage), LanguageTraits::id(request.language)},
    };
    auto* run = new SandboxRun(*this, spec, request.code, request.timeoutMs, parent);
    run->start();
    return run;
}

} // namespace csm
