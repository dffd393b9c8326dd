#include "history/RunStatus.h"

#include <array>
#include <utility>

namespace csm {

namespace {
constexpr std::array<std::pair<RunStatus, QLatin1String>, 8> kNames{{
    {RunStatus::Running, QLatin1String("running")},
    {RunStatus::Ok, QLatin1String("ok")},
    {RunStatus::Error, QLatin1String("error")},
    {RunStatus::Timeout, QLatin1String("timeout")},
    {RunStatus::Cancelled, QLatin1String("cancelled")},
    {RunStatus::Oom, QLatin1String("oom")},
    {RunStatus::EngineError, QLatin1String("engine_error")},
    {RunStatus::Interrupted, QLatin1String("interrupted")},
}};
} // namespace

QString RunStatusTraits::toString(RunStatus status)
{
    for (const auto& [value, name] : kNames) {
        if (value == status)
            return QString(name);
    }
    Q_UNREACHABLE();
}

std::optional<RunStatus> RunStatusTraits::fromString(QStringView text)
{
    for (const auto& [value, name] : kNames) {
        if (text == name)
            return value;
    }
    return std::nullopt;
}

} // namespace csm
