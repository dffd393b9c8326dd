#pragma once

#include "runtime/Language.h"

#include <QString>

#include <optional>

namespace csm {

// One thing that keeps sandboxes from running, with what fixes it.
struct HealthProblem
{
    enum class Kind
    {
        EngineMissing,     // the engine's program is not installed (or the name is unknown)
        EngineUnavailable, // it is installed but does not answer: daemon down, broken store
        ImageMissing,      // a language's image is not in the engine's store
    };

    Kind kind = Kind::EngineMissing;
    // ImageMissing: the language whose image it is, the image as the engine names it, and
    // whether it is the locally built default (which build-images makes) or the user's choice.
    std::optional<Language> language;
    QString image;
    bool defaultImage = false;
    // One line for people: "podman not found", "image not built: localhost/code-sandbox-...".
    QString message;
    // A command that fixes it, for people to run in a terminal; where no command can, what to
    // do instead.
    QString fixCommand;
    // ImageMissing: a registry may have it (not a name of this machine's own, localhost/...).
    bool pullable = false;
};

} // namespace csm
