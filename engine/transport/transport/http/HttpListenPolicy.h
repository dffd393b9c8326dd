#pragma once

#include "transport/http/HttpServerConfig.h"

#include <optional>

namespace csm::http {

// The rule for every way of starting an HTTP server (the headless server's flags, the desktop
// app's Server page and its settings), checked where the listener starts so that no caller can
// skip it:
// - the host is an IP address or "localhost";
// - a token is required, and has no whitespace or control character; --no-auth is accepted only
//   on a loopback address and without a token;
// - an address other machines can reach (not loopback) needs allowRemote and a token of at least
//   kMinRemoteTokenLength characters.
class HttpListenPolicy final
{
public:
    static constexpr int kMinRemoteTokenLength = 16;

    // Why a server with `config` must not listen, for a person; nothing when it may.
    static std::optional<QString> refusal(const HttpServerConfig& config);

    // "localhost", 127.0.0.0/8 or ::1 (with or without brackets).
    static bool isLoopback(const QString& host);
    // Whether a token is usable in an Authorization field: not empty, no whitespace or control
    // characters.
    static bool isWellFormedToken(const QString& token);
};

} // namespace csm::http
