#pragma once

#include "core/Expected.h"
#include "transport/http/HttpServerConfig.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace csm::http {

// The bearer token this user's HTTP servers share: one line in <data folder>/http-token, mode
// 0600. The headless server (--transport http) and the desktop app's HTTP server use it unless
// they are given a token of their own, and `install-client --http` and the Server page write it
// into the clients' configurations, so what clients send is what servers check. It is created,
// with 32 random bytes as 64 hex digits, the first time one of them needs it; a file that other
// users can read is refused, since they may know its token.
class HttpTokenFile final
{
public:
    explicit HttpTokenFile(QString path);
    // The token file of the data folder `dataDir`.
    static HttpTokenFile inDataDir(const QString& dataDir);
    static QString fileName() { return QStringLiteral("http-token"); }

    QString path() const { return m_path; }

    // The token kept there; nothing when there is no file. Fails when it cannot be read, other
    // users can access it or it holds no token.
    Expected<std::optional<QString>> read() const;
    // The token kept there, after creating the file (and its folder) if there is none. Two
    // processes creating it at once agree on one token: a file is never replaced here.
    Expected<QString> readOrCreate() const;
    // Replaces the token by a new one and returns it. Whoever holds the old one is refused from
    // then on (servers that use this file follow it).
    Expected<QString> rotate() const;

    // Gives `config` this file's token (creating it if needed) and sets its authTokenFile,
    // unless it has a token of its own or asks for none (noAuth). Fails when the file cannot
    // be used.
    Expected<void> applyTo(HttpServerConfig& config) const;

    // The token in a file's content (its one line, surrounding whitespace dropped), or nothing.
    static std::optional<QString> parse(const QByteArray& content);
    // 32 bytes from the system's random generator, as 64 hex digits: nothing that a shell, JSON
    // or an HTTP header would mangle.
    static QString generate();

private:
    Expected<void> ensureFolder() const;

    QString m_path;
};

} // namespace csm::http
