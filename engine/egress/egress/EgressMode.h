#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace csm {

// How a sandbox may reach the network (--egress).
enum class EgressMode
{
    Open,      // through the proxy: any public host, and the hosts the user names
    Allowlist, // through the proxy: only the hosts the user names
    Ask,       // through the proxy: the desktop app asks about each host not decided yet
    None,      // no network at all
    Bridge,    // the engine's bridge, unfiltered: everything this machine reaches (opt-in)
};

class EgressModes final
{
public:
    // "open", "allowlist", "ask", "none", "bridge": in options, settings and the history.
    static QString toString(EgressMode mode);
    static std::optional<EgressMode> fromString(const QString& text);
    static QStringList names();
};

} // namespace csm
