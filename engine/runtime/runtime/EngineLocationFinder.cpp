#include "runtime/EngineLocationFinder.h"

#include "core/Logging.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/EngineFileSightProbe.h"

#include <QLocale>

#include <utility>

namespace csm {

EngineLocationFinder::EngineLocationFinder(EngineLocationMemory memory)
    : m_memory(std::move(memory))
{}

void EngineLocationFinder::settle(ContainerRuntime& runtime, EngineLocationChoice choice,
                                  const QString& image, const QString& launcher,
                                  bool askAgain) const
{
    EngineLocation location = runtime.location();
    if (choice != EngineLocationChoice::Auto) {
        location.remote = choice == EngineLocationChoice::Remote;
        location.basis = QStringLiteral("set with --engine-location %1")
                             .arg(EngineLocationChoices::toString(choice));
        runtime.setLocation(location);
        return;
    }
    if (location.address.isEmpty() && !location.remote) {
        location.basis = QStringLiteral("its CLI runs the containers itself");
        runtime.setLocation(location);
        return;
    }
    const QString key = runtime.name() + QLatin1Char(' ') + location.address;
    if (!askAgain) {
        if (const auto known = m_memory.recall(key)) {
            location.remote = known->remote;
            location.basis =
                QStringLiteral("%1 (asked %2; doctor asks again)")
                    .arg(known->basis, QLocale::c().toString(known->asked.toLocalTime(),
                                                             QStringLiteral("yyyy-MM-dd HH:mm")));
            runtime.setLocation(location);
            return;
        }
    }
    const EngineFileSightProbe::Result asked = EngineFileSightProbe::ask(runtime, image, launcher);
    switch (asked.answer) {
    case EngineFileSightProbe::Answer::Sees:
    case EngineFileSightProbe::Answer::DoesNotSee:
        location.remote = asked.answer == EngineFileSightProbe::Answer::DoesNotSee;
        location.basis = asked.detail;
        m_memory.remember(key, {location.remote, asked.detail, QDateTime::currentDateTimeUtc()});
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
    runtime.setLocation(location);
}

} // namespace csm
