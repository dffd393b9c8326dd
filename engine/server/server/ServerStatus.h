#pragma once

#include <QDateTime>
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

    // A live interpreter session (run_*_code's `session`): times are wall-clock (UTC), so that a
    // display counts on from them without a new status every second.
    struct InterpreterSession
    {
        QString key; // its container, as the history's runs name it (RunRecord::sessionKey)
        QString name;
        QString language; // LanguageTraits::id
        QString transport;
        QString clientName;
        int cells = 0;
        bool running = false;
        qint64 memoryBytes = -1; // after its last cell; -1: not known
        QDateTime startedAt;
        QDateTime lastActiveAt;

        friend bool operator==(const InterpreterSession&, const InterpreterSession&) = default;
    };

    bool running = false;
    QUrl httpUrl; // empty while HTTP is not served
    QList<Session> sessions;
    QList<InterpreterSession> interpreterSessions;
    int runningCalls = 0;
    int pendingApprovals = 0;

    friend bool operator==(const ServerStatus&, const ServerStatus&) = default;
};

} // namespace csm

Q_DECLARE_METATYPE(csm::ServerStatus)
