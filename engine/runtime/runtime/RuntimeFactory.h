#pragma once

#include <QString>

#include <memory>

namespace csm {

class ContainerRuntime;

// Chooses the container engine: the one asked for, else podman, else docker.
class RuntimeFactory final
{
public:
    // `preference` is "podman", "docker", or empty / "auto" to detect. Returns null for an
    // unknown name. When nothing is installed it still returns podman, so that every call
    // answers with a clear "podman is not installed" instead of the server failing to start.
    // `endpoint`: where that engine is (ContainerRuntime::setEndpoint; empty: its default).
    static std::unique_ptr<ContainerRuntime> create(const QString& preference,
                                                    const QString& endpoint = {});
    static bool isKnownEngine(const QString& name);

private:
    static std::unique_ptr<ContainerRuntime> detect(const QString& preference);
};

} // namespace csm
