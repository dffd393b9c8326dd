#pragma once

#include <QByteArray>
#include <QString>

namespace csm {

// What a file holds, told from its first bytes rather than its name: a file named chart.png that
// holds text is text. The name only refines text (CSV, JSON, Markdown...).
class MediaType final
{
public:
    // How many first bytes sniff() wants.
    static constexpr qsizetype kSniffBytes = 512;

    // "image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml", "application/pdf",
    // "application/zip", "text/csv", "application/json", "text/plain"...; else
    // "application/octet-stream".
    static QString sniff(const QByteArray& head, const QString& fileName);

    // An image a model can be shown as MCP image content (SVG is sent as text instead).
    static bool isRasterImage(const QString& mediaType);
    static bool isText(const QString& mediaType);
};

} // namespace csm
