#pragma once

#include "runtime/ContainerInfo.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>

#include <optional>

namespace csm {

// Reads the machine-readable container listings of `podman ps` and `docker ps`. Lenient by
// design: an entry it cannot read is skipped, garbage yields an empty list, nothing throws.
class ContainerListing final
{
public:
    // A JSON array of entries (`podman ps --format json`).
    static QList<ContainerInfo> fromJsonArray(const QByteArray& output);
    // One JSON entry per line (`docker ps --format '{{json .}}'`); unreadable lines are skipped.
    static QList<ContainerInfo> fromJsonLines(const QByteArray& output);

    // One entry. Understands "Id" or "ID"; "Names" as an array or a comma-separated string;
    // "Labels" as an object or as docker's "k=v,k=v" string; and "LabelValues", an object of
    // exact values that override what was read from "Labels". Null without an id or a name.
    static std::optional<ContainerInfo> fromJson(const QJsonObject& entry);
};

} // namespace csm
