#pragma once

#include <QString>

namespace csm {

// Where a container engine runs its containers, as its CLI reaches it (ContainerRuntime::location).
struct EngineLocation
{
    // Its containers cannot see this machine's files or Unix sockets (another host, a VM): the
    // sandbox reaches them through the engine's own channels, never a host folder.
    bool remote = false;
    // What the CLI connects to (unix:///var/run/docker.sock, ssh://me@build), or the name of a
    // connection; empty when not known.
    QString address;
    // How that was found, for doctor: "a container saw a file of this machine", "set with
    // --engine-location"... (EngineLocationFinder); empty: from the address alone.
    QString basis;

    // The CLI runs the containers itself, with no engine service between (local Podman).
    bool cliRunsContainers() const { return address.isEmpty() && !remote; }

    friend bool operator==(const EngineLocation&, const EngineLocation&) = default;
};

} // namespace csm
