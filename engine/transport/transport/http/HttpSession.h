#pragma once

#include "transport/http/HttpConnection.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QJsonValue>
#include <QPointer>
#include <QString>

namespace csm::http {

// What the HTTP side knows of one MCP session (one Mcp-Session-Id): which connection waits for
// the response to which request, which progress token belongs to which request, and the GET
// stream for messages that belong to no request. The session's MCP state lives in its
// McpDispatcher on the server's thread.
struct HttpSession
{
    struct PendingRequest
    {
        QPointer<HttpConnection> connection;
        QJsonValue id;
        bool streamed = false;   // answered as text/event-stream (a tools/call)
        bool initialize = false; // its response carries the session id
        QByteArray progressKey;  // the request's progressToken, as a key; empty if none
    };

    QString id;
    // Keys are request ids (and progress tokens) as compact JSON, so 1 and "1" differ.
    QHash<QByteArray, PendingRequest> pending;
    QHash<QByteArray, QByteArray> requestByProgressToken;
    QPointer<HttpConnection> eventStream; // the GET stream, if one is open
    QElapsedTimer lastActivity;

    // Nothing in flight: the session may expire.
    bool isQuiet() const { return pending.isEmpty() && !eventStream; }
};

} // namespace csm::http
