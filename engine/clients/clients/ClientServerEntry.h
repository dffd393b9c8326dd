#pragma once

#include <QMap>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace csm {

// The server to put into a client's configuration, whatever the client: a program the client
// starts and talks to over stdio, or the URL of a running Streamable HTTP server (with the
// bearer token HttpAccessPolicy checks, if the server has one). ClientConfigSnippet turns it
// into each client's own shape.
struct ClientServerEntry
{
    enum class Transport
    {
        Stdio,
        Http,
    };

    // The key under the client's server list.
    QString name = defaultName();
    Transport transport = Transport::Stdio;

    // Stdio: the program (an absolute path, since clients start it without a shell or the
    // user's PATH), its arguments and extra environment variables.
    QString command;
    QStringList arguments;
    QMap<QString, QString> environment;

    // HTTP: the endpoint, and the token sent as "Authorization: Bearer <token>" (none when
    // empty).
    QUrl url;
    QString token;

    static QString defaultName() { return QStringLiteral("code-sandbox"); }

    // e.g. stdio("/usr/bin/code-sandbox-mcp") or stdio(app, {"--stdio"}).
    static ClientServerEntry stdio(const QString& command, const QStringList& arguments = {},
                                   const QMap<QString, QString>& environment = {});
    static ClientServerEntry http(const QUrl& url, const QString& token = {});

    // What is wrong with the entry, or empty when it can be written.
    QString problem() const;
};

} // namespace csm
