#pragma once

#include <QHostAddress>
#include <QString>

namespace csm {

// Where an address leads, as far as a sandbox's connection is concerned. Only Public is
// reachable by default: the others are this machine, its networks, or no real destination.
enum class AddressScope
{
    Public,
    Loopback,    // 127.0.0.0/8, ::1
    Private,     // 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7, fec0::/10
    LinkLocal,   // 169.254/16 (the cloud metadata service), fe80::/10
    Multicast,   // 224/4, ff00::/8
    Unspecified, // 0.0.0.0/8, ::
    Reserved,    // documentation, benchmarking, 240/4, broadcast and other special ranges
};

class AddressScopes final
{
public:
    // The scope of `address`. An IPv6 address that carries an IPv4 one (IPv4-mapped ::ffff:a.b.c.d,
    // IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16) has the scope of the IPv4 address it
    // carries: "::ffff:127.0.0.1" is loopback, not public. An invalid address is Unspecified.
    static AddressScope of(const QHostAddress& address);
    // "a private network", "this machine (loopback)", ...: for a refusal's reason.
    static QString describe(AddressScope scope);
};

} // namespace csm
