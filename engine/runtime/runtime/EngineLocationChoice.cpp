#include "runtime/EngineLocationChoice.h"

namespace csm {

std::optional<EngineLocationChoice> EngineLocationChoices::parse(const QString& text)
{
    const QString word = text.trimmed().toLower();
    if (word == QLatin1String("auto") || word.isEmpty())
        return EngineLocationChoice::Auto;
    if (word == QLatin1String("local"))
        return EngineLocationChoice::Local;
    if (word == QLatin1String("remote"))
        return EngineLocationChoice::Remote;
    return std::nullopt;
}

QString EngineLocationChoices::toString(EngineLocationChoice choice)
{
    switch (choice) {
    case EngineLocationChoice::Local:
        return QStringLiteral("local");
    case EngineLocationChoice::Remote:
        return QStringLiteral("remote");
    case EngineLocationChoice::Auto:
        break;
    }
    return QStringLiteral("auto");
}

} // namespace csm
