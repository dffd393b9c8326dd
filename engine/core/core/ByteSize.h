#pragma once

#include <QString>

#include <optional>

namespace csm {

// Sizes as users write them for container engines: 512m, 1g, 64k, 1048576 (bytes); binary units.
class ByteSize final
{
public:
    static std::optional<qint64> parse(const QString& text);
    // The shortest exact form, e.g. "512m".
    static QString format(qint64 bytes);
    // For a person to read, to three or four figures: "512 MiB", "47.1 KiB", "980 B".
    static QString forPeople(qint64 bytes);
};

} // namespace csm
