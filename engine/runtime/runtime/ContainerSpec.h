#pragma once

#include "runtime/SandboxFiles.h"
#include "runtime/SandboxPolicy.h"
#include "runtime/SecretVariables.h"

#include <QMap>
#include <QString>
#include <QStringList>

namespace csm {

// Everything needed to start one sandbox container; a runtime turns it into CLI arguments.
struct ContainerSpec
{
    // Where the sandbox launcher (csm-launch) is mounted, read-only, and run as PID 1.
    static constexpr char kLauncherMountPoint[] = "/.code-sandbox/launch";
    // A remote engine's containers: where the engine's volume of the sandbox's files
    // (SandboxFiles::volume) is mounted, read-only, and the launcher's name in it.
    static constexpr char kFilesVolumeMountPoint[] = "/.code-sandbox/files";
    static constexpr char kLauncherNameInVolume[] = "launch";
    static constexpr char kSeccompProfileNameInVolume[] = "seccomp.json";
    // Named as SandboxFiles::gvisorSeccompProfile() names it beside the profile.
    static constexpr char kGvisorSeccompProfileNameInVolume[] = "seccomp-gvisor.json";
    // Where a pooled container finds the folder holding its launcher's socket.
    static constexpr char kIoMountPoint[] = "/.code-sandbox/io";
    // Where a container in egress proxy mode finds its egress folder (read-only): the socket the
    // launcher's relay connects to and Node's fetch preload.
    static constexpr char kEgressMountPoint[] = "/.code-sandbox/egress";
    static constexpr char kEgressSocketName[] = "proxy";
    static constexpr char kEgressNodePreloadName[] = "fetch-proxy.cjs";
    // A remote engine's container in egress proxy mode: the abstract socket (of the container's
    // own network namespace) where its egress carrier listens for the relay (EgressCarrier).
    static constexpr char kEgressCarrierSocket[] = "@code-sandbox-egress";
    // Who the carrier runs as: not the sandbox's user, so that the program can neither signal it
    // nor open its streams to the server (/proc/PID/fd); an abstract socket has no permissions,
    // so the relay still reaches it. No capabilities, like every process of the container.
    static constexpr char kEgressCarrierUser[] = "65533:65533";
    // The port on the container's loopback where the relay listens, which HTTP_PROXY names.
    static constexpr int kEgressProxyPort = 3128;

    QString name;
    QString image;
    // The launcher and the seccomp profile on the host, and where the engine holds a copy of the
    // launcher (a remote engine); the launcher becomes the container's entrypoint.
    SandboxFiles files;
    // The interpreter the launcher runs with the program on its stdin, e.g. python3 -u -.
    QStringList command;
    SandboxPolicy policy;
    // Passed by name only (`-e NAME`): their values travel in the engine client's environment
    // (ContainerRuntime::newRunProcess), never in argv.
    SecretVariables secretVariables;
    // Non-secret variables set in the sandbox, e.g. HOME.
    QMap<QString, QString> environment;
    QMap<QString, QString> labels;
    // A warm pool's container: its launcher starts the interpreter at once and waits for the
    // request (the launcher's --listen). False: a call's own container, whose request comes
    // first, on its stdin.
    bool pooled = false;
    // A pooled container on a local engine: the host folder, mounted at kIoMountPoint, where the
    // launcher listens for the server's one connection, while the container runs detached.
    // Empty: the container stays attached and the launcher talks on its stdin and stdout, as a
    // remote engine needs (no host folder reaches its containers).
    QString ioDirectory;
    // A warm pool's container whose interpreter says when it is ready for its program (it
    // imports modules first): the launcher waits for that before it reports the container ready.
    bool interpreterSignalsReady = false;
    // A session's container (the launcher's --session): `command` is a session driver that keeps
    // its state between cells. Attached like a cold container, or (with ioDirectory) a warm
    // pool's, whose cells come through the socket.
    bool session = false;
    // Egress proxy mode: the host folder (EgressEndpoint) mounted at kEgressMountPoint. The
    // container then has no network of its own (policy.network is "none") and its programs
    // find the proxy through HTTP_PROXY and the like. Empty: no proxy, or a carried one.
    QString egressDirectory;
    // Egress proxy mode on a remote engine, which no host folder reaches: the relay connects to
    // the egress carrier the server runs in the container (kEgressCarrierSocket), and Node's
    // preload is in the files volume. The network is "none" as with egressDirectory.
    bool egressCarried = false;

    bool throughEgressProxy() const { return !egressDirectory.isEmpty() || egressCarried; }
};

} // namespace csm
