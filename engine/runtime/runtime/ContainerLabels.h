#pragma once

namespace csm {

// Label keys that mark a sandbox container and tie it to the server process that started it, so
// that a later server can find and remove the containers of one that died.
struct ContainerLabels final
{
    // Value: kApplicationName (core/Version.h).
    static constexpr char kApp[] = "code-sandbox.app";
    // Value: the random id of the server instance (SandboxRunner::instanceId()).
    static constexpr char kInstance[] = "code-sandbox.instance";
    // Value: the server's process id, in decimal.
    static constexpr char kPid[] = "code-sandbox.pid";
    // Value: QSysInfo::machineHostName() of the server: a pid means nothing on another machine
    // sharing the engine (a remote DOCKER_HOST).
    static constexpr char kHost[] = "code-sandbox.host";
    static constexpr char kLanguage[] = "code-sandbox.language";
    // On a remote engine's files volume (SandboxFilesVolume): an id its maker gave it, new with
    // each making (the engines' own creation times are no such thing: Docker's follows the
    // volume folder's changes).
    static constexpr char kVolumeId[] = "code-sandbox.volume-id";
    // On the marker of a checked files volume: the kVolumeId of the volume it vouches for.
    static constexpr char kChecksVolume[] = "code-sandbox.checks-volume";
};

} // namespace csm
