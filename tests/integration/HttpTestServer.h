#pragma once

#include "RawHttpClient.h"

#include <QByteArray>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

// The real code-sandbox-mcp binary serving Streamable HTTP on a free loopback port, against the
// engine of TestEngine and without a warm pool (so every container of the server is a call's
// own). It knows the token the server checks: the one given to it, else the one the server made
// in its data folder. Its stderr goes to a file, not a pipe: a test that blocks on a socket for a
// minute never stalls a server that logs a lot.
class HttpTestServer final
{
public:
    HttpTestServer();
    // Stops the server if a test left it running (SIGTERM, then SIGKILL).
    ~HttpTestServer();
    HttpTestServer(const HttpTestServer&) = delete;
    HttpTestServer& operator=(const HttpTestServer&) = delete;

    // Starts `code-sandbox-mcp --transport http --port 0 --engine E --pool 0` with `arguments`
    // appended and `environment` added to this process's environment, and waits for the line
    // that says where it serves.
    bool start(const QStringList& arguments = {}, const QMap<QString, QString>& environment = {},
               int timeoutMs = 20'000);

    quint16 port() const { return m_port; }
    QString url() const { return m_url; }
    // "127.0.0.1:PORT": what a client puts in Host.
    QByteArray hostHeader() const;
    // A POST of one JSON-RPC message to /mcp, as a conforming client sends it.
    RawHttpClient::Request postRequest(const QJsonObject& message,
                                       const QByteArray& sessionId = {}) const;
    // The same with a body of any bytes (malformed JSON too).
    RawHttpClient::Request postRequest(const QByteArray& body,
                                       const QByteArray& sessionId = {}) const;
    // initialize, then notifications/initialized, over `client`: the session id, or empty (with
    // a warning).
    QByteArray openSession(RawHttpClient& client) const;
    // The token clients must send (empty with --no-auth), and "Bearer <token>".
    QByteArray token() const { return m_token; }
    QByteArray authorization() const;
    // The data folder the server uses.
    QString dataDir() const { return m_dataDir; }
    // The pid it had, also after it exited (its containers are labelled with it).
    qint64 pid() const { return m_pid; }
    bool isRunning() const { return m_process.state() != QProcess::NotRunning; }
    // Everything it wrote to stderr so far.
    QString standardError() const;

    // Sends SIGTERM and waits; true if it exited within the time.
    bool terminate(int timeoutMs);
    int exitCode() const { return m_process.exitCode(); }
    QProcess::ExitStatus exitStatus() const { return m_process.exitStatus(); }

private:
    QByteArray tokenFor(const QStringList& arguments,
                        const QMap<QString, QString>& environment) const;

    QTemporaryDir m_dir;
    QProcess m_process;
    QString m_url;
    QString m_dataDir;
    QByteArray m_token;
    quint16 m_port = 0;
    qint64 m_pid = 0;
};
