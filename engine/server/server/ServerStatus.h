#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <QUrl>

namespace csm {

// What the app's embedded server is doing, as the Server page and the tray icon show it.
struct ServerStatus
{
    struct Session
    {
        QString transport; // stdio, http
        QString sessionId;
        QString clientName;
        QString clientVersion;
        int runningCalls = 0;

        friend bool operator==(const Session&, const Session&) = default;
    };

    bool running = false;
    QUrl httpUrl; // empty while HTTP is not served
    QList<Session> sessions;
    int runningCalls = 0;
    int pendingApprovals = 0;

    friend bool operator==(const ServerStatus&, const ServerStatus&) = default;
};

} // namespace csm

Q_DECLARE_METATYPE(csm::ServerStatus)
