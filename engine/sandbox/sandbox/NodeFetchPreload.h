#pragma once

#include <QByteArray>

namespace csm {

// Node 18's fetch (its bundled undici) ignores HTTP_PROXY and HTTPS_PROXY, and a sandbox in proxy
// mode has no network but the egress proxy. This preload (NODE_OPTIONS=--require) gives fetch a
// dispatcher that opens each connection as a CONNECT tunnel through the proxy, with TLS inside
// it for https. Node's http and https modules have no proxy support of their own; npm and most
// HTTP libraries bring theirs, which reads the variables.
class NodeFetchPreload final
{
public:
    // The script, as Node reads it.
    static QByteArray source();
};

} // namespace csm
