#pragma once

#include "core/Expected.h"
#include "mcp/CallContext.h"

#include <QJsonObject>
#include <QString>

namespace csm {

// What the server serves through resources/read (the files of runs). The dispatcher declares
// the `resources` capability only when it has one.
class ResourceProvider
{
public:
    virtual ~ResourceProvider() = default;

    // A resources/read result ({"contents": [...]}), or why `uri` cannot be read by `reader`.
    virtual Expected<QJsonObject> read(const QString& uri, const CallContext& reader) const = 0;
};

} // namespace csm
