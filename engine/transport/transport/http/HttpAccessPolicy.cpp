#include "transport/http/HttpAccessPolicy.h"

#include "transport/http/HttpRequest.h"

#include <QHostAddress>
#include <QUrl>

namespace csm::http {

namespace {
// "name", "name:port", "[v6]" or "[v6]:port" -> the name (IPv6 without brackets), or empty when
// the value is malformed.
QString hostNameOf(const QByteArray& host)
{
    QByteArray name = host.trimmed().toLower();
    QByteArray port;
    if (name.startsWith('[')) {
        const qsizetype close = name.indexOf(']');
        if (close < 0)
            return {};
        port = name.mid(close + 1);
        name = name.mid(1, close - 1);
        if (!port.isEmpty() && !port.startsWith(':'))
            return {};
        port = port.mid(1);
    } else if (const qsizetype colon = name.lastIndexOf(':'); colon >= 0) {
        port = name.mid(colon + 1);
        name = name.left(colon);
    }
    if (name.isEmpty())
        return {};
    if (!port.isEmpty()) {
        bool ok = false;
        const uint number = port.toUInt(&ok);
        if (!ok || number > 65535)
            return {};
    }
    return QString::fromLatin1(name);
}

QString normalisedHostName(const QString& configured)
{
    QString name = configured.trimmed().toLower();
    if (name.startsWith(QLatin1Char('[')) && name.endsWith(QLatin1Char(']')))
        name = name.mid(1, name.size() - 2);
    return name;
}
} // namespace

HttpAccessPolicy::HttpAccessPolicy(const HttpServerConfig& config)
    : m_hostNames{QStringLiteral("localhost"), QStringLiteral("127.0.0.1"), QStringLiteral("::1")}
    , m_token(config.authToken.toUtf8())
    , m_noAuth(config.noAuth)
{
    // A wildcard address is no name a client would use; the allowed hosts must say which.
    const QHostAddress bound(normalisedHostName(config.host));
    if (bound != QHostAddress::AnyIPv4 && bound != QHostAddress::AnyIPv6 &&
        bound != QHostAddress::Any)
        m_hostNames << normalisedHostName(config.host);
    for (const QString& host : config.allowedHosts)
        m_hostNames << normalisedHostName(host);
    for (const QString& origin : config.allowedOrigins)
        m_origins << origin.trimmed().toLower();
}

std::optional<HttpResponse> HttpAccessPolicy::check(const HttpRequest& request) const
{
    if (request.headerCount("host") != 1) {
        return HttpResponse::error(400, QStringLiteral("Bad Request: exactly one Host header is "
                                                       "required"));
    }
    if (!isHostAllowed(request.header("host"))) {
        return HttpResponse::error(
            403, QStringLiteral("Forbidden: Host \"%1\" is not this server (DNS rebinding "
                                "protection); allow it with --allowed-host")
                     .arg(QString::fromLatin1(request.header("host").left(200))));
    }
    if (request.headerCount("origin") > 1 || !isOriginAllowed(request.header("origin"))) {
        return HttpResponse::error(
            403, QStringLiteral("Forbidden: Origin \"%1\" is not allowed; allow it with "
                                "--allowed-origin")
                     .arg(QString::fromLatin1(request.header("origin").left(200))));
    }
    if (!isAuthorized(request.header("authorization"))) {
        HttpResponse refusal = HttpResponse::error(
            401, QStringLiteral("Unauthorized: this server needs \"Authorization: Bearer "
                                "<token>\" with its token"));
        refusal.setHeader(
            "WWW-Authenticate",
            request.header("authorization").isEmpty()
                ? QByteArray("Bearer realm=\"code-sandbox\"")
                : QByteArray("Bearer realm=\"code-sandbox\", error=\"invalid_token\""));
        return refusal;
    }
    return std::nullopt;
}

bool HttpAccessPolicy::isAllowedHostName(const QString& name) const
{
    return !name.isEmpty() && m_hostNames.contains(name);
}

bool HttpAccessPolicy::isHostAllowed(const QByteArray& host) const
{
    return isAllowedHostName(hostNameOf(host));
}

bool HttpAccessPolicy::isOriginAllowed(const QByteArray& origin) const
{
    if (origin.isNull())
        return true; // not a browser: nothing to protect against here
    const QString text = QString::fromLatin1(origin).trimmed().toLower();
    if (m_origins.contains(text))
        return true;
    // "null" (a sandboxed page, a file://) and anything not http(s) are never loopback pages.
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() ||
        (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return false;
    if (!url.path().isEmpty() || url.hasQuery() || !url.userInfo().isEmpty())
        return false;
    return isAllowedHostName(url.host());
}

void HttpAccessPolicy::setToken(const QString& token)
{
    m_token = token.toUtf8();
}

bool HttpAccessPolicy::isAuthorized(const QByteArray& authorization) const
{
    if (m_noAuth)
        return true;
    // No token and no --no-auth is a mistake somewhere: nobody gets in (HttpListenPolicy does
    // not let such a server listen in the first place).
    if (m_token.isEmpty())
        return false;
    const QByteArray value = authorization.trimmed();
    const qsizetype space = value.indexOf(' ');
    if (space < 0 || value.left(space).compare("bearer", Qt::CaseInsensitive) != 0)
        return false;
    return constantTimeEquals(value.mid(space + 1).trimmed(), m_token);
}

bool HttpAccessPolicy::constantTimeEquals(const QByteArray& a, const QByteArray& b)
{
    // Every byte of the longer one is looked at, whatever differs first, so the time taken
    // tells an attacker nothing about how much of a guess was right.
    const qsizetype length = std::max(a.size(), b.size());
    unsigned difference = a.size() == b.size() ? 0U : 1U;
    for (qsizetype i = 0; i < length; ++i) {
        const auto x = static_cast<unsigned char>(i < a.size() ? a.at(i) : 0);
        const auto y = static_cast<unsigned char>(i < b.size() ? b.at(i) : 0);
        difference |= static_cast<unsigned>(x ^ y);
    }
    return difference == 0;
}

} // namespace csm::http
