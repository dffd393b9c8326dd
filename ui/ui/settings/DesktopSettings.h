#pragma once

#include "core/Expected.h"
#include "transport/http/HttpServerConfig.h"

#include <QString>

namespace csm {

// The desktop app's own settings: the [desktop] group of settings.ini in the data folder, beside
// the [server] group that every server reads (ServerSettings). The file holds the HTTP token,
// so it is saved readable by its owner only.
struct DesktopSettings
{
    // Each call to the app's embedded server waits for the user to approve it.
    bool approvalRequired = false;
    // A call nobody approves within this long is denied.
    int approvalTimeoutSeconds = 60;
    // The embedded Streamable HTTP server.
    QString httpHost = QStringLiteral("127.0.0.1");
    int httpPort = 8765;
    // A token of the app's own; empty: the token this user's servers share (HttpTokenFile).
    QString httpToken;
    // An address other machines can reach is allowed (HttpListenPolicy still asks for a token
    // of 16 characters or more).
    bool httpAllowRemote = false;
    bool httpStartWithApp = false;
    // Desktop notifications (through the tray icon): a call waits for approval; a call failed
    // (status error) or was killed for memory (oom), in any server whose runs the app sees.
    bool notifyApprovals = true;
    bool notifyFailures = false;
    // The first-run setup was finished or skipped: it is not offered again by itself.
    bool setupDone = false;
    // The person was told, once, that closing the window keeps the app in the tray.
    bool trayNoticeShown = false;

    static DesktopSettings load(const QString& dataDir);
    // The HTTP server these settings describe, with the app's own token if it has one (else
    // none yet: HttpTokenFile::applyTo gives it the shared one).
    http::HttpServerConfig httpServerConfig() const;
    Expected<void> save(const QString& dataDir) const;

    friend bool operator==(const DesktopSettings&, const DesktopSettings&) = default;
};

} // namespace csm
