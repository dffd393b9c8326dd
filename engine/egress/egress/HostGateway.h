#pragma once

#include <QHostAddress>
#include <QList>
#include <QString>
#include <QStringList>

namespace csm {

// The one name by which a sandbox reaches this machine's own services: host.containers.internal
// (Podman's convention), with host.docker.internal (Docker's) as an alias. The sandbox's
// 127.0.0.1 is its own loopback for every program (NO_PROXY says so, and the fetch preload
// honours it); this name goes through the egress proxy, which runs on this machine and maps it
// to this machine's loopback, once an allow rule names it (either spelling). So the same URL gets
// the same answer from every program that uses the proxy, on a local or a remote engine.
class HostGateway final
{
public:
    // host.containers.internal: the name the README and the refusals show.
    static QString name();
    // Both spellings, the documented one first.
    static QStringList names();
    // Whether `host` (as a program named it) is one of them: case-insensitive, a trailing dot
    // allowed.
    static bool isName(const QString& host);
    // Where the proxy connects for it: this machine's loopback, IPv4 first.
    static QList<QHostAddress> addresses();
};

} // namespace csm
