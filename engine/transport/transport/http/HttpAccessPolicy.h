#pragma once

#include "transport/http/HttpResponse.h"
#include "transport/http/HttpServerConfig.h"

#include <QByteArray>
#include <QStringList>

#include <optional>

namespace csm::http {

struct HttpRequest;

// Who may talk to the server, checked as soon as a request's header section has arrived, before
// any of its body is read (HttpConnection asks through HttpRequestHandler::admit):
// - Host must name this server (the loopback names, the bound address, or an allowed host), so a
//   web page whose DNS name was rebound to 127.0.0.1 cannot reach it (a browser sends the
//   attacker's name as Host);
// - Origin, when present (browsers send it), must be a loopback or allowed origin;
// - "Authorization: Bearer <token>", compared in constant time; unless the server runs with
//   --no-auth, a server without a token admits nobody.
class HttpAccessPolicy final
{
public:
    explicit HttpAccessPolicy(const HttpServerConfig& config);

    // The refusal to send, or nothing when the request may proceed.
    std::optional<HttpResponse> check(const HttpRequest& request) const;

    bool isHostAllowed(const QByteArray& host) const;
    bool isOriginAllowed(const QByteArray& origin) const;
    bool isAuthorized(const QByteArray& authorization) const;
    // A new token (the token file changed): from the next request on, only it is accepted.
    void setToken(const QString& token);

    // Whether two byte strings are equal, taking the same time wherever they differ.
    static bool constantTimeEquals(const QByteArray& a, const QByteArray& b);

private:
    bool isAllowedHostName(const QString& name) const;

    QStringList m_hostNames; // lower-case, IPv6 without brackets
    QStringList m_origins;   // lower-case, exactly as a browser sends them
    QByteArray m_token;
    bool m_noAuth = false;
};

} // namespace csm::http
