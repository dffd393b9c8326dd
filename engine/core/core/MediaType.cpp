#include "core/MediaType.h"

#include <QFileInfo>
#include <QStringDecoder>

#include <cstring>

namespace csm {

namespace {
bool startsWith(const QByteArray& head, const char* signature, qsizetype size)
{
    return head.size() >= size && std::memcmp(head.constData(), signature, size_t(size)) == 0;
}

// Valid UTF-8 without NUL bytes; a character cut at the end of `head` does not count against it.
bool looksLikeText(const QByteArray& head, bool complete)
{
    if (head.contains('\0'))
        return false;
    QByteArray checked = head;
    if (!complete) {
        // Drop a character the sniff window may have cut in half.
        qsizetype back = 0;
        while (back < 3 && back < checked.size() &&
               (static_cast<unsigned char>(checked.at(checked.size() - 1 - back)) & 0xC0) == 0x80)
            ++back;
        if (back < checked.size() &&
            static_cast<unsigned char>(checked.at(checked.size() - 1 - back)) >= 0xC0)
            checked.chop(back + 1);
    }
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = decoder.decode(checked);
    Q_UNUSED(text)
    return !decoder.hasError();
}
} // namespace

QString MediaType::sniff(const QByteArray& head, const QString& fileName)
{
    if (startsWith(head, "\x89PNG\r\n\x1a\n", 8))
        return QStringLiteral("image/png");
    if (startsWith(head, "\xff\xd8\xff", 3))
        return QStringLiteral("image/jpeg");
    if (startsWith(head, "GIF87a", 6) || startsWith(head, "GIF89a", 6))
        return QStringLiteral("image/gif");
    if (startsWith(head, "RIFF", 4) && head.size() >= 12 && head.mid(8, 4) == "WEBP")
        return QStringLiteral("image/webp");
    if (startsWith(head, "%PDF-", 5))
        return QStringLiteral("application/pdf");
    if (startsWith(head, "PK\x03\x04", 4))
        return QStringLiteral("application/zip");
    if (!looksLikeText(head, head.size() < kSniffBytes))
        return QStringLiteral("application/octet-stream");
    if (head.contains("<svg"))
        return QStringLiteral("image/svg+xml");
    const QString suffix = QFileInfo(fileName).suffix().toLower();
    if (suffix == QLatin1String("csv"))
        return QStringLiteral("text/csv");
    if (suffix == QLatin1String("tsv"))
        return QStringLiteral("text/tab-separated-values");
    if (suffix == QLatin1String("json"))
        return QStringLiteral("application/json");
    if (suffix == QLatin1String("md"))
        return QStringLiteral("text/markdown");
    if (suffix == QLatin1String("html") || suffix == QLatin1String("htm"))
        return QStringLiteral("text/html");
    return QStringLiteral("text/plain");
}

bool MediaType::isRasterImage(const QString& mediaType)
{
    return mediaType == QLatin1String("image/png") || mediaType == QLatin1String("image/jpeg") ||
           mediaType == QLatin1String("image/gif") || mediaType == QLatin1String("image/webp");
}

bool MediaType::isText(const QString& mediaType)
{
    return mediaType.startsWith(QLatin1String("text/")) ||
           mediaType == QLatin1String("application/json") ||
           mediaType == QLatin1String("image/svg+xml");
}

} // namespace csm
