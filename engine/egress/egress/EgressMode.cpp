#include "egress/EgressMode.h"

#include "core/EnumNames.h"

namespace csm {

namespace {
constexpr EnumNames kNames{std::array{
    std::pair{EgressMode::Open, "open"},
    std::pair{EgressMode::Allowlist, "allowlist"},
    std::pair{EgressMode::Ask, "ask"},
    std::pair{EgressMode::None, "none"},
    std::pair{EgressMode::Bridge, "bridge"},
}};
} // namespace

QString EgressModes::toString(EgressMode mode)
{
    return kNames.toString(mode);
}

std::optional<EgressMode> EgressModes::fromString(const QString& text)
{
    return kNames.fromString(text);
}

QStringList EgressModes::names()
{
    return kNames.names();
}

} // namespace csm
