#pragma once

#include <QString>

#include <functional>
#include <memory>

class QTemporaryDir;

namespace csm {

// The folder, under the system's temporary folder, that holds a server's egress endpoints (one
// folder per container, EgressEndpoint). It carries the server's pid in its name, so that the
// next server to make one removes those of servers that were killed before they could (kill -9,
// a crash): a socket and a preload each, but one per container ever started.
class EgressFolders final
{
public:
    // Whether the server with this pid is still running (ProcessProbe's check by default).
    using LivenessCheck = std::function<bool(qint64 pid)>;

    // A new root in `parent` for this process, after removing the roots in `parent` of servers
    // no longer running (only folders owned by the same user as the new one).
    static std::unique_ptr<QTemporaryDir> makeRoot(const QString& parent,
                                                   const LivenessCheck& isAlive = {});
};

} // namespace csm
