#include "egress/AddressScope.h"

#include <array>
#include <optional>

namespace csm {

namespace {

struct Range
{
    const char* network;
    int prefix;
    AddressScope scope;
};

// Special-purpose ranges (RFC 6890 and the IANA registries): whatever is not here is public.
constexpr std::array kIpv4Ranges{
    Range{"0.0.0.0", 8, AddressScope::Unspecified},
    Range{"10.0.0.0", 8, AddressScope::Private},
    Range{"100.64.0.0", 10, AddressScope::Private},
    Range{"127.0.0.0", 8, AddressScope::Loopback},
    Range{"169.254.0.0", 16, AddressScope::LinkLocal},
    Range{"172.16.0.0", 12, AddressScope::Private},
    Range{"192.0.0.0", 24, AddressScope::Reserved},
    Range{"192.0.2.0", 24, AddressScope::Reserved},
    Range{"192.88.99.0", 24, AddressScope::Reserved},
    Range{"192.168.0.0", 16, AddressScope::Private},
    Range{"198.18.0.0", 15, AddressScope::Reserved},
    Range{"198.51.100.0", 24, AddressScope::Reserved},
    Range{"203.0.113.0", 24, AddressScope::Reserved},
    Range{"224.0.0.0", 4, AddressScope::Multicast},
    Range{"240.0.0.0", 4, AddressScope::Reserved}, // 255.255.255.255 (broadcast) included
};

constexpr std::array kIpv6Ranges{
    Range{"::1", 128, AddressScope::Loopback},
    Range{"::", 128, AddressScope::Unspecified},
    Range{"100::", 64, AddressScope::Reserved},      // discard-only
    Range{"2001::", 23, AddressScope::Reserved},     // IETF protocol assignments, Teredo included
    Range{"2001:db8::", 32, AddressScope::Reserved}, // documentation
    // IPv4-translated (SIIT) and local-use NAT64: a translator on the path may turn them into
    // any IPv4 address, this machine's included.
    Range{"::ffff:0:0:0", 96, AddressScope::Reserved},
    Range{"64:ff9b:1::", 48, AddressScope::Reserved},
    Range{"fc00::", 7, AddressScope::Private}, // unique local
    Range{"fe80::", 10, AddressScope::LinkLocal},
    Range{"fec0::", 10, AddressScope::Private}, // site-local (deprecated, still routed inside)
    Range{"ff00::", 8, AddressScope::Multicast},
};

template <size_t N>
std::optional<AddressScope> lookUp(const QHostAddress& address, const std::array<Range, N>& ranges)
{
    for (const Range& range : ranges) {
        if (address.isInSubnet(QHostAddress(QLatin1String(range.network)), range.prefix))
            return range.scope;
    }
    return std::nullopt;
}

// The IPv4 address an IPv6 one carries, if it carries one.
std::optional<QHostAddress> embeddedIpv4(const QHostAddress& address)
{
    const Q_IPV6ADDR bytes = address.toIPv6Address();
    const auto ipv4At = [&bytes](int offset) {
        return QHostAddress(quint32(bytes[offset]) << 24 | quint32(bytes[offset + 1]) << 16 |
                            quint32(bytes[offset + 2]) << 8 | quint32(bytes[offset + 3]));
    };
    // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated), but not :: and ::1.
    bool zeros = true;
    for (int i = 0; i < 10; ++i)
        zeros = zeros && bytes[i] == 0;
    if (zeros && ((bytes[10] == 0xff && bytes[11] == 0xff) || (bytes[10] == 0 && bytes[11] == 0)) &&
        !address.isInSubnet(QHostAddress(QStringLiteral("::")), 127))
        return ipv4At(12);
    if (address.isInSubnet(QHostAddress(QStringLiteral("64:ff9b::")), 96))
        return ipv4At(12); // NAT64
    if (address.isInSubnet(QHostAddress(QStringLiteral("2002::")), 16))
        return ipv4At(2); // 6to4
    return std::nullopt;
}

} // namespace

AddressScope AddressScopes::of(const QHostAddress& address)
{
    switch (address.protocol()) {
    case QAbstractSocket::IPv4Protocol:
        return lookUp(address, kIpv4Ranges).value_or(AddressScope::Public);
    case QAbstractSocket::IPv6Protocol:
        if (const auto ipv4 = embeddedIpv4(address))
            return of(*ipv4);
        return lookUp(address, kIpv6Ranges).value_or(AddressScope::Public);
    default:
        return AddressScope::Unspecified;
    }
}

QString AddressScopes::describe(AddressScope scope)
{
    switch (scope) {
    case AddressScope::Public:
        return QStringLiteral("a public address");
    case AddressScope::Loopback:
        return QStringLiteral("this machine (loopback)");
    case AddressScope::Private:
        return QStringLiteral("a private network");
    case AddressScope::LinkLocal:
        return QStringLiteral("a link-local address (such as the cloud metadata service)");
    case AddressScope::Multicast:
        return QStringLiteral("a multicast address");
    case AddressScope::Unspecified:
        return QStringLiteral("no real destination (an unspecified address)");
    case AddressScope::Reserved:
        return QStringLiteral("a reserved address range");
    }
    return {};
}

} // namespace csm
