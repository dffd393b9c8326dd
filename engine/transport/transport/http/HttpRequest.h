#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>

namespace csm::http {

// One HTTP/1.1 request as received: what the server needs of it, nothing more.
struct HttpRequest
{
    QByteArray method;    // as sent, e.g. "POST" (methods are case-sensitive)
    QByteArray target;    // the request target as sent: "/mcp" or "/mcp?x=1"
    int minorVersion = 1; // HTTP/1.<minorVersion>; only 1.0 and 1.1 are accepted
    // Header fields in the order received; names lower-cased, values with surrounding
    // whitespace removed.
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body; // decoded (chunked transfer coding removed)

    // The value of the first field with this (lower-case) name, or a null QByteArray.
    QByteArray header(QByteArrayView lowerCaseName) const;
    // How many fields carry this name (a request with two Host fields is malformed).
    int headerCount(QByteArrayView lowerCaseName) const;
    // The path of the target without its query ("/mcp?x=1" -> "/mcp").
    QByteArray path() const;
    // Whether the client wants the connection kept open after the response
    // (HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "Connection: keep-alive").
    bool keepAlive() const;
};

} // namespace csm::http
