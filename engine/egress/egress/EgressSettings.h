#pragma once

#include "egress/EgressMode.h"
#include "egress/HostPattern.h"

#include <QList>

namespace csm {

// What the user chose for sandboxes' network (--egress, --allow-host, the Settings page).
struct EgressSettings
{
    EgressMode mode = EgressMode::Open;
    // Hosts the user names: the only ones in allowlist mode, and the way to reach a private or
    // loopback host in the other proxy modes.
    QList<HostPattern> allowedHosts;
    // Ask mode: hosts the person chose "Always allow" for in the app. Unlike allowedHosts they
    // reach public addresses only: the program chose the name, and could later make it resolve
    // to a private one.
    QList<HostPattern> alwaysAllowed;

    // Whether connections go through the host's proxy (open, allowlist, ask); none and bridge
    // give the container no network or the engine's own.
    bool throughProxy() const
    {
        return mode == EgressMode::Open || mode == EgressMode::Allowlist || mode == EgressMode::Ask;
    }
    // The container engine's network for this mode: only bridge gives the container one.
    QString engineNetwork() const
    {
        return mode == EgressMode::Bridge ? QStringLiteral("bridge") : QStringLiteral("none");
    }

    friend bool operator==(const EgressSettings&, const EgressSettings&) = default;
};

} // namespace csm
