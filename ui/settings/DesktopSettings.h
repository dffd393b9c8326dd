#pragma once

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
    QString httpToken; // empty: no token asked for (loopback only)
    bool httpStartWithApp = false;
    // The first-run setup was finished or skipped: it is not offered again by itself.
    bool setupDone = false;

    static DesktopSettings load(const QString& dataDir);
    bool save(const QString& dataDir, QString* error = nullptr) const;

    friend bool operator==(const DesktopSettings&, const DesktopSettings&) = default;
};

} // namespace csm
