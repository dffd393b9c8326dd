#pragma once

#include "egress/AddressScope.h"
#include "egress/EgressMode.h"
#include "egress/HostPattern.h"

#include <QHostAddress>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

namespace csm {

// Whether a sandbox's connection to HOST:PORT may go, once the proxy has resolved HOST: the
// decision is made on the name and on every address it resolved to, and the proxy then
// connects to those checked addresses only, so a name that resolves to a public address for
// the check and a private one for the connection (DNS rebinding) gets nowhere.
//
// By default only public addresses are reachable: loopback, private networks, link-local (the
// cloud metadata service at 169.254.169.254), multicast, reserved ranges and this machine's own
// addresses are refused, unless an allow rule names the host (by name or address). This machine's
// services are reached by name (HostGateway), which an allow rule must name as well.
class EgressPolicy final
{
public:
    enum class Verdict
    {
        Allow,
        Deny,
        Ask, // the person decides (ask mode); the proxy waits for the answer
    };
    struct Decision
    {
        Verdict verdict = Verdict::Deny;
        // Why, for the history, the app and the model: "169.254.169.254 is a link-local
        // address (such as the cloud metadata service)".
        QString reason;
    };

    // This machine's own addresses, read when a connection is decided: an address gained since
    // the run started (a VPN, a new network) counts, and a run that connects nowhere never
    // reads them.
    using OwnAddresses = std::function<QList<QHostAddress>()>;

    // `ownAddresses`: none when empty. `alwaysAllowed`: ask mode's hosts allowed for good, at
    // public addresses only.
    EgressPolicy(EgressMode mode, QList<HostPattern> allowed, OwnAddresses ownAddresses,
                 QList<HostPattern> alwaysAllowed = {});

    EgressMode mode() const { return m_mode; }
    // `host` as the program asked for it (a name or an address literal), `resolved`: the
    // addresses the proxy resolved it to (the literal's own for an address).
    Decision decide(const QString& host, quint16 port, const QList<QHostAddress>& resolved) const;
    // A refusal that needs no lookup (no network; a host the allow list does not name), or
    // nothing: the proxy then resolves the name. Refusing first keeps a name that will be
    // refused anyway (and whatever a program encodes in it) off this machine's resolver.
    std::optional<Decision> decideBeforeResolving(const QString& host, quint16 port) const;
    // Ask mode, a name that no rule allows: the person is asked before the name is resolved
    // (decide() then checks the addresses it resolves to).
    bool asksBeforeResolving(const QString& host, quint16 port) const;

private:
    static bool matches(const QList<HostPattern>& patterns, const QString& host, quint16 port);
    // Whether an allow rule names `host`; either spelling of this machine's name
    // (HostGateway) names both.
    bool named(const QString& host, quint16 port) const;

    EgressMode m_mode;
    QList<HostPattern> m_allowed;
    QList<HostPattern> m_alwaysAllowed;
    OwnAddresses m_ownAddresses;
};

} // namespace csm
