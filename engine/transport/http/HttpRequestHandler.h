#pragma once

namespace csm::http {

class HttpConnection;
struct HttpRequest;

// What an HttpServer hands its requests to. The handler answers on the connection, at once or
// later (the connection reads nothing more until it has).
class HttpRequestHandler
{
public:
    virtual ~HttpRequestHandler() = default;

    virtual void handleRequest(HttpConnection& connection, const HttpRequest& request) = 0;
    // The connection is gone; a response still owed on it can no longer be delivered.
    virtual void connectionClosed(HttpConnection& connection) = 0;
};

} // namespace csm::http
