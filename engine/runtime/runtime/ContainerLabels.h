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
    // On the marker of a remote engine's checked files volume (SandboxFilesVolume): when the
    // volume it vouches for was made, as the engine says.
    static constexpr char kChecksVolume[] = "code-sandbox.checks-volume";
};

} // namespace csm
