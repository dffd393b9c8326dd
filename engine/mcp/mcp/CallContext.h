#pragma once

#include <QString>

namespace csm {

// Who made a tools/call and through what, for the tool to pass on (e.g. to the run history).
// The dispatcher fills it; tools must not depend on any field being set.
struct CallContext
{
    QString transport;     // "stdio" or "http"
    QString sessionId;     // HTTP's Mcp-Session-Id; empty on stdio
    QString clientName;    // initialize's clientInfo.name
    QString clientVersion; // initialize's clientInfo.version
    QString tool;          // the tool's name (not the alias the client may have used)
};

} // namespace csm
