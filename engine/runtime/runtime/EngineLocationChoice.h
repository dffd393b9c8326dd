#pragma once

#include <QString>

#include <optional>

namespace csm {

// Whether the engine's containers see this machine's files, as the user may settle it
// (--engine-location): auto asks the engine (EngineLocationFinder).
enum class EngineLocationChoice
{
    Auto,
    Local,
    Remote,
};

struct EngineLocationChoices final
{
    // "auto", "local", "remote" (any case); nothing for anything else.
    static std::optional<EngineLocationChoice> parse(const QString& text);
    static QString toString(EngineLocationChoice choice);
};

} // namespace csm
