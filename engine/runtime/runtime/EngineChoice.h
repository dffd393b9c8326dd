#pragma once

#include "runtime/Language.h"

#include <QString>

namespace csm {

// The engine and images a user chose for sandboxes: the part of the server's settings that the
// runtime layer reads (EngineHealthCheck), so that it needs nothing from the layers above it.
struct EngineChoice
{
    QString engine;      // "podman", "docker"; empty: RuntimeFactory detects one
    QString endpoint;    // EngineAddress; empty: the engine CLI's own default
    QString pythonImage; // empty: the locally built default
    QString jsImage;

    QString image(Language language) const
    {
        return language == Language::Python ? pythonImage : jsImage;
    }
};

} // namespace csm
