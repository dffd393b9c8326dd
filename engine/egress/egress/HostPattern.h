#pragma once

#include "core/Expected.h"

#include <QHostAddress>
#include <QString>

#include <optional>

namespace csm {

// A host the user names in an egress rule (`--allow-host`, the Settings page): `api.github.com`,
// `*.pypi.org` (its subdomains, not pypi.org itself), an address (`10.0.0.5`, `[fd00::1]`),
// each with an optional `:PORT`. Names match case-insensitively and without a trailing dot;
// an address matches that address only, written any way (`[::ffff:10.0.0.5]` is 10.0.0.5).
class HostPattern final
{
public:
    // Fails, saying why, on an empty text, a bad port, a wildcard anywhere but in front, or
    // characters no host name has.
    static Expected<HostPattern> parse(const QString& text);

    // Whether a connection to `host` (as the program named it: a name or an address literal)
    // on `port` is one this pattern names.
    bool matches(const QString& host, quint16 port) const;
    // As the user would write it again: "*.pypi.org", "api.github.com:443", "[fd00::1]:8080".
    QString toString() const;
    // One name, not "*.NAME" nor an address.
    bool isExactName() const { return !m_subdomains && !m_address; }
    // The port it names; none for every port.
    std::optional<quint16> port() const { return m_port; }

    friend bool operator==(const HostPattern&, const HostPattern&) = default;

private:
    HostPattern() = default;

    QString m_name;            // lower case, no trailing dot; empty for an address
    bool m_subdomains = false; // "*.NAME"
    std::optional<QHostAddress> m_address;
    std::optional<quint16> m_port;
};

} // namespace csm
