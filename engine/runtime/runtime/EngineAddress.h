#pragma once

#include <QString>

namespace csm {

// Where an engine's CLI finds its engine, as a person writes it: a URL (unix:///run/x.sock,
// tcp://build:2376, ssh://me@build) or the name of a Docker context or a Podman connection.
// Empty: the CLI's own default (its variables, its configuration).
class EngineAddress final
{
public:
    static bool isUrl(const QString& address) { return address.contains(QLatin1String("://")); }

    // Whether an engine reached at `url` runs its containers where they cannot see this
    // machine's files and Unix sockets: any network transport (tcp, ssh, npipe...), and a Unix
    // socket that leads into a virtual machine (Docker Desktop's, Podman machine's). A plain
    // local Unix socket is local; and on a system other than Linux, every engine runs in a VM.
    static bool isRemoteUrl(const QString& url);
    // Whether `url` leads into a VM on this machine (any engine off Linux; Docker Desktop's,
    // Podman machine's, Rancher Desktop's, Colima's or Lima's socket): its file sharing may show
    // this machine's files to its containers, but no Unix socket crosses it, and a local engine's
    // sandboxes are reached through sockets in shared folders.
    static bool leadsIntoVirtualMachine(const QString& url);

    // A short description for people: "this machine (unix:///var/run/docker.sock)",
    // "ssh://me@build".
    static QString describe(const QString& url, bool remote);
};

} // namespace csm
