#pragma once

#include "core/Expected.h"
#include "sandbox/InputFile.h"

#include <QJsonValue>
#include <QList>

namespace csm {

// The `files` argument of run_*_code: [{path, content, encoding: "utf-8"|"base64"}], checked
// before anything runs. A path must stay under the working directory (relative, no "..", no
// empty or "." parts), name a file only once, and not be a folder of another; the count and the
// total size are capped. Every refusal says which entry and why, for the model to fix its call.
class InputFileList final
{
public:
    struct Limits
    {
        int maxFiles = 100;
        qint64 maxBytes = 32LL * 1024 * 1024;
    };

    // `value` undefined or null: no files.
    static Expected<QList<InputFile>> parse(const QJsonValue& value, const Limits& limits);
    // The JSON schema of the argument, for the tool's inputSchema.
    static QJsonObject schema(const Limits& limits, const QString& workdir);
};

} // namespace csm
