#pragma once

#include <QString>
#include <QStringList>
#include <QUrl>

namespace csm::http {

// How the Streamable HTTP transport serves: where, for whom, and within which limits.
// HttpListenPolicy says which combinations may listen at all.
struct HttpServerConfig
{
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = 8765; // 0: any free port (the log says which)
    QString path = QStringLiteral("/mcp");
    // A non-loopback host is refused unless this is set (and then a token is required).
    bool allowRemote = false;
    // Clients must send "Authorization: Bearer <token>". Never empty unless noAuth: loopback TCP
    // does not tell one local account from another.
    QString authToken;
    // Where authToken was read from (the data folder's http-token), when it was: the server
    // then follows that file, so a new token there replaces the old one without a restart.
    QString authTokenFile;
    // No token asked for (--no-auth): only on a loopback host, and every local account can then
    // run code as this one.
    bool noAuth = false;
    // Host and Origin values accepted besides the loopback names (DNS rebinding protection).
    QStringList allowedHosts;
    QStringList allowedOrigins;

    qint64 maxRequestBytes = 16 * 1024 * 1024;
    int maxConnections = 256;
    int maxSessions = 100;
    int sessionIdleSeconds = 1800;     // a session with nothing running expires after this
    int requestTimeoutSeconds = 30;    // a request must arrive whole within this
    int idleTimeoutSeconds = 60;       // a keep-alive connection with no request is closed
    int keepAliveIntervalSeconds = 15; // SSE comment on open streams, so proxies keep them

    // http://host:port/path for a client on this machine: a wildcard address becomes 127.0.0.1
    // (or ::1), an IPv6 address gets its brackets. The port must be the one actually bound.
    QUrl clientUrl() const;
};

} // namespace csm::http
