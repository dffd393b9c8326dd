#include "server/HttpOptionsParser.h"

#include "core/ByteSize.h"
#include "transport/http/HttpListenPolicy.h"

#include <QCommandLineParser>
#include <QHostAddress>
#include <QRegularExpression>

namespace csm {

namespace {
QCommandLineOption valueOption(const char* name, const QString& description, const char* valueName)
{
    return QCommandLineOption(QString::fromLatin1(name), description,
                              QString::fromLatin1(valueName));
}

std::optional<int> wholeNumber(const QString& text, int minimum, int maximum)
{
    bool ok = false;
    const int value = text.trimmed().toInt(&ok);
    if (!ok || value < minimum || value > maximum)
        return std::nullopt;
    return value;
}

QString flag(const QCommandLineOption& option)
{
    return QStringLiteral("--") + option.names().constFirst();
}
} // namespace

HttpOptionsParser::HttpOptionsParser()
    : m_transport(valueOption("transport",
                              QStringLiteral("How MCP is served: stdio (the default, as MCP "
                                             "clients launch servers) or http (Streamable HTTP). "
                                             "Env: CODE_SANDBOX_TRANSPORT."),
                              "stdio|http"))
    , m_host(valueOption("host",
                         QStringLiteral("HTTP: address to listen on (default 127.0.0.1). A "
                                        "non-loopback address needs --allow-remote and a token "
                                        "of 16 characters or more."),
                         "address"))
    , m_port(valueOption("port", QStringLiteral("HTTP: port (default 8765; 0 picks a free one)."),
                         "port"))
    , m_path(valueOption("path", QStringLiteral("HTTP: the MCP endpoint's path (default /mcp)."),
                         "path"))
    , m_allowRemote(QStringLiteral("allow-remote"),
                    QStringLiteral("HTTP: allow a --host other than loopback. Anyone who can "
                                   "reach it and has the token can run code."))
    , m_authToken(valueOption("auth-token",
                              QStringLiteral("HTTP: the token clients must send as "
                                             "\"Authorization: Bearer TOKEN\", instead of the "
                                             "one kept in the data folder's http-token (made on "
                                             "first use, mode 0600; install-client --http writes "
                                             "it into clients). Prefer the environment variable: "
                                             "a command line is visible to other users. Env: "
                                             "CODE_SANDBOX_AUTH_TOKEN."),
                              "token"))
    , m_noAuth(QStringLiteral("no-auth"),
               QStringLiteral("HTTP: ask for no token. Only with an explicit loopback --host "
                              "(--no-auth --host 127.0.0.1), and then every account on this "
                              "machine can run code as you, with your secrets: for test suites "
                              "that cannot send a token."))
    , m_allowedHost(valueOption("allowed-host",
                                QStringLiteral("HTTP: a Host name accepted besides localhost, "
                                               "127.0.0.1 and [::1] (DNS rebinding protection). "
                                               "May be repeated."),
                                "name"))
    , m_allowedOrigin(valueOption("allowed-origin",
                                  QStringLiteral("HTTP: a browser Origin accepted besides "
                                                 "loopback ones, e.g. http://myapp.local:3000. "
                                                 "May be repeated."),
                                  "origin"))
    , m_maxRequestSize(valueOption(
          "max-request-size", QStringLiteral("HTTP: largest request body (default 16m)."), "size"))
    , m_maxSessions(valueOption(
          "max-sessions", QStringLiteral("HTTP: sessions open at once (default 100)."), "count"))
    , m_maxConnections(valueOption("max-connections",
                                   QStringLiteral("HTTP: connections open at once (default 256)."),
                                   "count"))
    , m_sessionTimeout(valueOption("session-timeout",
                                   QStringLiteral("HTTP: a session with nothing running ends "
                                                  "after this many seconds without a request "
                                                  "(default 1800)."),
                                   "seconds"))
    , m_requestTimeout(valueOption("request-timeout",
                                   QStringLiteral("HTTP: a request must arrive whole within this "
                                                  "many seconds (default 30)."),
                                   "seconds"))
    , m_idleTimeout(valueOption("idle-timeout",
                                QStringLiteral("HTTP: a connection with no request is closed "
                                               "after this many seconds (default 60)."),
                                "seconds"))
{}

QList<const QCommandLineOption*> HttpOptionsParser::httpOnly() const
{
    return {&m_host,           &m_port,        &m_path,           &m_allowRemote,
            &m_authToken,      &m_noAuth,      &m_allowedHost,    &m_allowedOrigin,
            &m_maxRequestSize, &m_maxSessions, &m_maxConnections, &m_sessionTimeout,
            &m_requestTimeout, &m_idleTimeout};
}

void HttpOptionsParser::addTo(QCommandLineParser& parser) const
{
    parser.addOption(m_transport);
    for (const QCommandLineOption* option : httpOnly())
        parser.addOption(*option);
}

std::optional<QString> HttpOptionsParser::readTransport(const QCommandLineParser& parser,
                                                        const QProcessEnvironment& environment,
                                                        bool* http) const
{
    const bool fromFlag = parser.isSet(m_transport);
    const QString name = (fromFlag ? parser.value(m_transport)
                                   : environment.value(QStringLiteral("CODE_SANDBOX_TRANSPORT"),
                                                       QStringLiteral("stdio")))
                             .trimmed()
                             .toLower();
    if (name == QLatin1String("stdio") || name.isEmpty()) {
        *http = false;
    } else if (name == QLatin1String("http") || name == QLatin1String("streamable-http")) {
        *http = true;
    } else {
        return QStringLiteral("%1 \"%2\": must be stdio or http")
            .arg(fromFlag ? flag(m_transport) : QStringLiteral("CODE_SANDBOX_TRANSPORT"), name);
    }
    return std::nullopt;
}

std::optional<QString> HttpOptionsParser::read(const QCommandLineParser& parser,
                                               const QProcessEnvironment& environment, bool http,
                                               http::HttpServerConfig& config) const
{
    if (!http) {
        for (const QCommandLineOption* option : httpOnly()) {
            if (parser.isSet(*option))
                return QStringLiteral("%1 applies only with --transport http").arg(flag(*option));
        }
        return std::nullopt;
    }

    if (parser.isSet(m_host))
        config.host = parser.value(m_host).trimmed().toLower();
    if (config.host != QLatin1String("localhost") && QHostAddress(config.host).isNull())
        return QStringLiteral("--host \"%1\": must be an IP address or localhost").arg(config.host);
    if (parser.isSet(m_port)) {
        const auto port = wholeNumber(parser.value(m_port), 0, 65535);
        if (!port)
            return QStringLiteral("--port \"%1\": must be a port from 0 to 65535")
                .arg(parser.value(m_port));
        config.port = static_cast<quint16>(*port);
    }
    if (parser.isSet(m_path)) {
        static const QRegularExpression pathPattern(QStringLiteral("^/[A-Za-z0-9._~/-]*$"));
        config.path = parser.value(m_path).trimmed();
        if (!pathPattern.match(config.path).hasMatch())
            return QStringLiteral("--path \"%1\": must start with / and use only letters, digits "
                                  "and . _ ~ / -")
                .arg(config.path);
    }
    config.allowRemote = parser.isSet(m_allowRemote);
    config.authToken = parser.isSet(m_authToken)
                           ? parser.value(m_authToken)
                           : environment.value(QStringLiteral("CODE_SANDBOX_AUTH_TOKEN"));
    if (!config.authToken.isEmpty() && !http::HttpListenPolicy::isWellFormedToken(config.authToken))
        return QStringLiteral("--auth-token: a token cannot contain whitespace or control "
                              "characters");
    config.noAuth = parser.isSet(m_noAuth);
    // "Explicit": the default address could change under someone who relies on it.
    if (config.noAuth &&
        (!parser.isSet(m_host) || !http::HttpListenPolicy::isLoopback(config.host)))
        return QStringLiteral("--no-auth needs an explicit loopback address: --no-auth --host "
                              "127.0.0.1 (or ::1)");
    // The rest of the rule (a token, --allow-remote for other addresses) is HttpListenPolicy's,
    // checked once the token is known (it may come from the data folder).
    config.allowedHosts = parser.values(m_allowedHost);
    config.allowedOrigins = parser.values(m_allowedOrigin);

    if (parser.isSet(m_maxRequestSize)) {
        const auto bytes = ByteSize::parse(parser.value(m_maxRequestSize));
        if (!bytes || *bytes < 1024 || *bytes > 1024LL * 1024 * 1024)
            return QStringLiteral("--max-request-size \"%1\": must be a size from 1k to 1g")
                .arg(parser.value(m_maxRequestSize));
        config.maxRequestBytes = *bytes;
    }
    struct Bounded
    {
        const QCommandLineOption& option;
        int minimum;
        int maximum;
        int& target;
    };
    const Bounded bounded[] = {
        {m_maxSessions, 1, 100'000, config.maxSessions},
        {m_maxConnections, 1, 100'000, config.maxConnections},
        {m_sessionTimeout, 1, 7 * 86'400, config.sessionIdleSeconds},
        {m_requestTimeout, 1, 3'600, config.requestTimeoutSeconds},
        {m_idleTimeout, 1, 86'400, config.idleTimeoutSeconds},
    };
    for (const Bounded& setting : bounded) {
        if (!parser.isSet(setting.option))
            continue;
        const auto value =
            wholeNumber(parser.value(setting.option), setting.minimum, setting.maximum);
        if (!value)
            return QStringLiteral("%1 \"%2\": must be a whole number from %3 to %4")
                .arg(flag(setting.option), parser.value(setting.option))
                .arg(setting.minimum)
                .arg(setting.maximum);
        setting.target = *value;
    }
    return std::nullopt;
}

} // namespace csm
