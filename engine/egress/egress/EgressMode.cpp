#include "egress/EgressMode.h"

#include <array>
#include <utility>

namespace csm {

namespace {
constexpr std::array kNames{
    std::pair{EgressMode::Open, "open"},     std::pair{EgressMode::Allowlist, "allowlist"},
    std::pair{EgressMode::Ask, "ask"},       std::pair{EgressMode::None, "none"},
    std::pair{EgressMode::Bridge, "bridge"},
};
} // namespace

QString EgressModes::toString(EgressMode mode)
{
    for (const auto& [known, name] : kNames) {
        if (known == mode)
            return QLatin1String(name);
    }
    return {};
}

std::optional<EgressMode> EgressModes::fromString(const QString& text)
{
    for (const auto& [mode, name] : kNames) {
        if (text == QLatin1String(name))
            return mode;
    }
    return std::nullopt;
}

QStringList EgressModes::names()
{
    QStringList names;
    for (const auto& [mode, name] : kNames)
        names << QLatin1String(name);
    return names;
}

} // namespace csm
