#pragma once

#include <QString>

#include <optional>

namespace csm {

// The URI a run's file is served under (resources/read): code-sandbox://runs/KEY/out/PATH,
// KEY the run's folder in RunFilesStore and PATH the file under it, percent-encoded.
class RunFileUri final
{
public:
    struct Parts
    {
        QString key;
        QString relativePath; // "out/figure-1.png"
    };

    static QString make(const QString& key, const QString& relativePath);
    // Nothing for a URI of another shape.
    static std::optional<Parts> parse(const QString& uri);
    // The path of `storedPath` under the folder of the run `key` ("out/x.png"); empty when it
    // is not under it.
    static QString relativeToRun(const QString& storedPath, const QString& key);
};

} // namespace csm
