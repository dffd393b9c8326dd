#pragma once

#include "runtime/ImageInfo.h"

#include <QByteArray>
#include <QList>

#include <optional>

namespace csm {

// Reads the machine-readable image listings of `podman images` and `docker images`. Lenient
// like ContainerListing: an entry it cannot read is skipped, garbage yields an empty list.
class ImageListing final
{
public:
    // `podman images --format json`: one JSON array; an image with several names gives one
    // ImageInfo per name, one with none (dangling) a single nameless one.
    static QList<ImageInfo> fromPodmanJson(const QByteArray& output);
    // `docker images --format '{{json .}}'`: one object per line, "<none>" for a missing
    // repository or tag, the size in docker's rounded decimal units.
    static QList<ImageInfo> fromDockerJsonLines(const QByteArray& output);

    // Docker's human size ("174MB", "7.8kB", "1.23GB", "0B"): decimal units, as docker
    // prints them. Null for anything else.
    static std::optional<qint64> parseDockerSize(const QString& text);
    // Docker's CreatedAt ("2026-12-03 02:03:45 +0000 UTC"); invalid for anything else.
    static QDateTime parseDockerTime(const QString& text);
};

} // namespace csm
