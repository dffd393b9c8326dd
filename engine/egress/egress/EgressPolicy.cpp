#include "egress/EgressPolicy.h"

#include "egress/HostGateway.h"

#include <algorithm>
#include <utility>

namespace csm {

EgressPolicy::EgressPolicy(EgressMode mode, QList<HostPattern> allowed, OwnAddresses ownAddresses,
                           QList<HostPattern> alwaysAllowed)
    : m_mode(mode)
    , m_allowed(std::move(allowed))
    , m_alwaysAllowed(std::move(alwaysAllowed))
    , m_ownAddresses(std::move(ownAddresses))
{}

bool EgressPolicy::matches(const QList<HostPattern>& patterns, const QString& host, quint16 port)
{
    for (const HostPattern& pattern : patterns) {
        if (pattern.matches(host, port))
            return true;
    }
    return false;
}

bool EgressPolicy::named(const QString& host, quint16 port) const
{
    if (!HostGateway::isName(host))
        return matches(m_allowed, host, port);
    // This machine's name leads to its loopback, where more listens than anyone would open at
    // once (an engine's API, this server): only a rule that names it, not "*.internal", and
    // with its port.
    const QStringList aliases = HostGateway::names();
    return std::any_of(m_allowed.cbegin(), m_allowed.cend(), [&](const HostPattern& pattern) {
        return pattern.isExactName() && pattern.port() &&
               std::any_of(aliases.cbegin(), aliases.cend(),
                           [&](const QString& alias) { return pattern.matches(alias, port); });
    });
}

std::optional<EgressPolicy::Decision> EgressPolicy::decideBeforeResolving(const QString& host,
                                                                          quint16 port) const
{
    const QString target = QStringLiteral("%1:%2").arg(host).arg(port);
    if (m_mode == EgressMode::None)
        return Decision{Verdict::Deny,
                        QStringLiteral("%1: this sandbox has no network").arg(target)};
    // Not asked about in ask mode either: allowed there, it would still be loopback.
    if (m_mode != EgressMode::Bridge && HostGateway::isName(host) && !named(host, port))
        return Decision{Verdict::Deny,
                        QStringLiteral("%1: this machine's services are reached where an allow "
                                       "rule names %2 with the port (--allow-host %2:%3)")
                            .arg(target, HostGateway::name())
                            .arg(port)};
    if (m_mode == EgressMode::Allowlist && !named(host, port))
        return Decision{Verdict::Deny, QStringLiteral("%1: not on the allow list").arg(target)};
    return std::nullopt;
}

bool EgressPolicy::asksBeforeResolving(const QString& host, quint16 port) const
{
    return m_mode == EgressMode::Ask && !named(host, port) && !matches(m_alwaysAllowed, host, port);
}

EgressPolicy::Decision EgressPolicy::decide(const QString& host, quint16 port,
                                            const QList<QHostAddress>& resolved) const
{
    const QString target = QStringLiteral("%1:%2").arg(host).arg(port);
    if (m_mode == EgressMode::None)
        return {Verdict::Deny, QStringLiteral("%1: this sandbox has no network").arg(target)};
    if (m_mode == EgressMode::Bridge)
        return {Verdict::Allow, QStringLiteral("%1: unfiltered (bridge)").arg(target)};
    if (resolved.isEmpty())
        return {Verdict::Deny, QStringLiteral("%1: the name does not resolve").arg(target)};
    // Named by the user: wherever it leads, that is what was asked for.
    if (named(host, port))
        return {Verdict::Allow, QStringLiteral("%1: allowed by a rule").arg(target)};
    const QList<QHostAddress> own = m_ownAddresses ? m_ownAddresses() : QList<QHostAddress>();
    for (const QHostAddress& address : resolved) {
        const QString shown = address.toString();
        const AddressScope scope = AddressScopes::of(address);
        if (scope == AddressScope::Loopback) {
            // Not the sandbox's own loopback (NO_PROXY keeps that in the sandbox): a program
            // that came here asked for this machine, which has a name for it.
            return {Verdict::Deny,
                    QStringLiteral("%1: %2 is %3; this machine's services are at %4:PORT once an "
                                   "allow rule (--allow-host %4:PORT) names it")
                        .arg(target, shown, AddressScopes::describe(scope), HostGateway::name())};
        }
        if (own.contains(address)) {
            return {Verdict::Deny,
                    QStringLiteral("%1: %2 is this machine; name the host in an allow rule "
                                   "(--allow-host) to reach it")
                        .arg(target, shown)};
        }
        if (scope != AddressScope::Public) {
            return {Verdict::Deny, QStringLiteral("%1: %2 is %3; name the host in an allow rule "
                                                  "(--allow-host) to reach it")
                                       .arg(target, shown, AddressScopes::describe(scope))};
        }
    }
    switch (m_mode) {
    case EgressMode::Open:
        return {Verdict::Allow, QStringLiteral("%1: a public host").arg(target)};
    case EgressMode::Allowlist:
        return {Verdict::Deny, QStringLiteral("%1: not on the allow list").arg(target)};
    case EgressMode::Ask:
        // Past the address checks above: "always" never reaches a private address.
        if (matches(m_alwaysAllowed, host, port))
            return {Verdict::Allow,
                    QStringLiteral("%1: a public host allowed always when asked").arg(target)};
        return {Verdict::Ask, QStringLiteral("%1: not decided yet").arg(target)};
    case EgressMode::None:
    case EgressMode::Bridge:
        break;
    }
    return {Verdict::Deny, QStringLiteral("%1: refused").arg(target)};
}

} // namespace csm
