#include "transport/http/HttpListenPolicy.h"

#include <QHostAddress>

#include <algorithm>

namespace csm::http {

namespace {
QString withoutBrackets(const QString& host)
{
    QString name = host.trimmed();
    if (name.startsWith(QLatin1Char('[')) && name.endsWith(QLatin1Char(']')))
        name = name.mid(1, name.size() - 2);
    return name;
}
} // namespace

bool HttpListenPolicy::isLoopback(const QString& host)
{
    const QString name = withoutBrackets(host);
    return name.compare(QLatin1String("localhost"), Qt::CaseInsensitive) == 0 ||
           QHostAddress(name).isLoopback();
}

bool HttpListenPolicy::isWellFormedToken(const QString& token)
{
    return !token.isEmpty() && std::none_of(token.cbegin(), token.cend(), [](QChar c) {
        return c.isSpace() || c.category() == QChar::Other_Control;
    });
}

std::optional<QString> HttpListenPolicy::refusal(const HttpServerConfig& config)
{
    const QString host = withoutBrackets(config.host);
    if (host.compare(QLatin1String("localhost"), Qt::CaseInsensitive) != 0 &&
        QHostAddress(host).isNull())
        return QStringLiteral("cannot listen on \"%1\": not an IP address or localhost")
            .arg(config.host);
    const bool loopback = isLoopback(host);
    if (config.noAuth) {
        if (!loopback)
            return QStringLiteral("--no-auth is refused on %1: it is for a loopback address "
                                  "(127.0.0.1 or ::1) only; elsewhere anyone who reaches the "
                                  "server could run code")
                .arg(config.host);
        if (!config.authToken.isEmpty())
            return QStringLiteral("--no-auth and a token (--auth-token, CODE_SANDBOX_AUTH_TOKEN) "
                                  "exclude each other");
        return std::nullopt;
    }
    if (config.authToken.isEmpty())
        return QStringLiteral("no token: an HTTP server always requires \"Authorization: Bearer "
                              "<token>\", since any account on this machine can reach a "
                              "loopback port (the token is kept in the data folder's "
                              "http-token unless --auth-token or CODE_SANDBOX_AUTH_TOKEN gives "
                              "one)");
    if (!isWellFormedToken(config.authToken))
        return QStringLiteral("the token cannot contain whitespace or control characters");
    if (!loopback) {
        if (!config.allowRemote)
            return QStringLiteral("%1 is reachable from other machines: allow that explicitly "
                                  "(--allow-remote; on the Server page, \"Allow other "
                                  "machines\") if it is what you want")
                .arg(config.host);
        if (config.authToken.size() < kMinRemoteTokenLength)
            return QStringLiteral("serving %1 to other machines needs a token of at least %2 "
                                  "characters: anyone who reaches the server and guesses it "
                                  "could run code")
                .arg(config.host)
                .arg(kMinRemoteTokenLength);
    }
    return std::nullopt;
}

} // namespace csm::http
