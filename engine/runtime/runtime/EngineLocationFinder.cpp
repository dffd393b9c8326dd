#include "runtime/EngineLocationFinder.h"

#include "core/Logging.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/EngineAddress.h"
#include "runtime/EngineFileSightProbe.h"

#include <QDir>
#include <QLocale>

#include <utility>

#ifdef Q_OS_LINUX
#include <unistd.h>
#endif

namespace csm {

namespace {

// "mnt:[4026531840]": which files this process sees; empty where there is no such thing.
QString mountNamespace()
{
#ifdef Q_OS_LINUX
    char target[64];
    const ssize_t size = ::readlink("/proc/self/ns/mnt", target, sizeof target - 1);
    return size > 0 ? QString::fromLatin1(target, size) : QString();
#else
    return {};
#endif
}

} // namespace

EngineLocationFinder::EngineLocationFinder(EngineLocationMemory memory)
    : m_memory(std::move(memory))
{}

std::optional<EngineLocation> EngineLocationFinder::known(const ContainerRuntime& runtime,
                                                          EngineLocationChoice choice,
                                                          bool askAgain) const
{
    EngineLocation location = runtime.location();
    if (choice != EngineLocationChoice::Auto) {
        location.remote = choice == EngineLocationChoice::Remote;
        location.basis = QStringLiteral("set with --engine-location %1")
                             .arg(EngineLocationChoices::toString(choice));
        return location;
    }
    if (location.cliRunsContainers()) {
        location.basis = QStringLiteral("its CLI runs the containers itself");
        return location;
    }
    // Seeing the files would not do: no socket crosses a VM's file sharing.
    if (EngineAddress::leadsIntoVirtualMachine(location.address)) {
        location.remote = true;
        location.basis = QStringLiteral("it runs in a VM, whose file sharing carries no sockets");
        return location;
    }
    if (askAgain)
        return std::nullopt;
    const std::optional<EngineLocationMemory::Entry> recalled = m_memory.recall(memoryKey(runtime));
    if (!recalled)
        return std::nullopt;
    location.remote = recalled->remote;
    location.basis =
        QStringLiteral("%1 (asked %2; doctor asks again)")
            .arg(recalled->basis, QLocale::c().toString(recalled->asked.toLocalTime(),
                                                        QStringLiteral("yyyy-MM-dd HH:mm")));
    return location;
}

EngineLocation EngineLocationFinder::located(const ContainerRuntime& runtime,
                                             const EngineFileSightProbe::Result& asked) const
{
    EngineLocation location = runtime.location();
    switch (asked.answer) {
    case EngineFileSightProbe::Answer::Sees:
    case EngineFileSightProbe::Answer::DoesNotSee:
        location.remote = asked.answer == EngineFileSightProbe::Answer::DoesNotSee;
        location.basis = asked.detail;
        m_memory.remember(memoryKey(runtime),
                          {location.remote, asked.detail, QDateTime::currentDateTimeUtc()});
        break;
    case EngineFileSightProbe::Answer::Unknown:
        location.basis = QStringLiteral("by its address: the engine could not be asked whether "
                                        "it sees this machine's files (%1); the next start asks")
                             .arg(asked.detail);
        break;
    }
    qCInfo(lcEngine).noquote() << runtime.name()
                               << "engine:" << (location.remote ? "remote" : "this machine") << "-"
                               << location.basis;
    return location;
}

void EngineLocationFinder::settle(ContainerRuntime& runtime, EngineLocationChoice choice,
                                  const QString& image, const QString& launcher,
                                  bool askAgain) const
{
    std::optional<EngineLocation> location = known(runtime, choice, askAgain);
    if (!location)
        location = located(runtime, EngineFileSightProbe::ask(runtime, image, launcher));
    runtime.setLocation(*location);
}

QString EngineLocationFinder::memoryKey(const ContainerRuntime& runtime)
{
    // What the probe sees depends on this process's temporary folder and mount namespace as
    // much as on the engine (a service with a private /tmp sees other files than a shell).
    return QStringLiteral("%1 %2 %3 %4")
        .arg(runtime.name(), runtime.location().address, QDir::tempPath(), mountNamespace());
}

} // namespace csm
