#pragma once

#include "transport/http/HttpResponse.h"

#include <optional>

namespace csm::http {

class HttpConnection;
struct HttpRequest;

// What an HttpServer hands its requests to. The handler answers on the connection, at once or
// later (the connection reads nothing more until it has).
class HttpRequestHandler
{
public:
    virtual ~HttpRequestHandler() = default;

    // Whether a request may be read on, from its request line and header fields alone: the
    // refusal to send, or nothing. Asked before any of its body is read (and before
    // "100 Continue"), so that whoever may not call the server cannot make it hold a body.
    virtual std::optional<HttpResponse> admit(const HttpRequest& head) = 0;

    virtual void handleRequest(HttpConnection& connection, const HttpRequest& request) = 0;
    // The connection is gone; a response still owed on it can no longer be delivered.
    virtual void connectionClosed(HttpConnection& connection) = 0;
};

} // namespace csm::http
