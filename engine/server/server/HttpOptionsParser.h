#pragma once

#include "transport/http/HttpServerConfig.h"

#include <QCommandLineOption>
#include <QList>
#include <QProcessEnvironment>

#include <optional>

class QCommandLineParser;

namespace csm {

// The flags of the Streamable HTTP transport (--transport, --host, --port, --auth-token ...),
// added to the server's command line and read into an HttpServerConfig.
class HttpOptionsParser final
{
public:
    HttpOptionsParser();

    void addTo(QCommandLineParser& parser) const;
    // Whether --transport http (or CODE_SANDBOX_TRANSPORT=http) was chosen; an error for any
    // other transport name.
    std::optional<QString> readTransport(const QCommandLineParser& parser,
                                         const QProcessEnvironment& environment, bool* http) const;
    // Fills `config`; the error names the flag. With stdio, HTTP flags are an error: they would
    // be silently useless. Where the server may listen and with which token is
    // HttpListenPolicy's to say, once the token is known.
    std::optional<QString> read(const QCommandLineParser& parser,
                                const QProcessEnvironment& environment, bool http,
                                http::HttpServerConfig& config) const;

private:
    // Every flag but --transport, in the order --help lists them.
    QList<const QCommandLineOption*> httpOnly() const;

    QCommandLineOption m_transport;
    QCommandLineOption m_host;
    QCommandLineOption m_port;
    QCommandLineOption m_path;
    QCommandLineOption m_allowRemote;
    QCommandLineOption m_authToken;
    QCommandLineOption m_noAuth;
    QCommandLineOption m_allowedHost;
    QCommandLineOption m_allowedOrigin;
    QCommandLineOption m_maxRequestSize;
    QCommandLineOption m_maxSessions;
    QCommandLineOption m_maxConnections;
    QCommandLineOption m_sessionTimeout;
    QCommandLineOption m_requestTimeout;
    QCommandLineOption m_idleTimeout;
};

} // namespace csm
