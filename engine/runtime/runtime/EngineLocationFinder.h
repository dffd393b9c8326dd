#pragma once

#include "runtime/EngineFileSightProbe.h"
#include "runtime/EngineLocation.h"
#include "runtime/EngineLocationChoice.h"
#include "runtime/EngineLocationMemory.h"

#include <QString>

#include <optional>

namespace csm {

class ContainerRuntime;

// Settles whether an engine's containers see this machine's files (ContainerRuntime::location):
// what the user chose (--engine-location); else, for an engine reached through an address,
// what asking it found (EngineFileSightProbe), asked once per engine and address and then
// recalled (doctor asks again). An engine that cannot be asked yet (not running, its image not
// built) is placed by its address's shape, as before, and asked at the next start. Local Podman
// without a service runs its containers itself: it is local, with nothing to ask.
class EngineLocationFinder final
{
public:
    explicit EngineLocationFinder(EngineLocationMemory memory = EngineLocationMemory());

    // What is settled without asking the engine; nothing when it must be asked (a probe, whose
    // answer located() reads). `askAgain`: ask even when an answer is known (doctor).
    std::optional<EngineLocation> known(const ContainerRuntime& runtime,
                                        EngineLocationChoice choice, bool askAgain = false) const;
    // Where the probe's answer places the engine; a real answer is kept for the next start.
    EngineLocation located(const ContainerRuntime& runtime,
                           const EngineFileSightProbe::Result& asked) const;

    // Both, waiting for the probe: for commands. `image`: what the probe's container runs (the
    // sandbox's); `launcher`: this machine's launcher, which the probe mounts as a sandbox would.
    void settle(ContainerRuntime& runtime, EngineLocationChoice choice, const QString& image,
                const QString& launcher, bool askAgain = false) const;

private:
    // What the answer depends on besides the engine (EngineLocationMemory's key).
    static QString memoryKey(const ContainerRuntime& runtime);

    EngineLocationMemory m_memory;
};

} // namespace csm
