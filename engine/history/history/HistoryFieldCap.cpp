#include "history/HistoryFieldCap.h"

#include <QLocale>

namespace csm {

namespace {
bool isContinuationByte(char byte)
{
    return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}
} // namespace

QString HistoryFieldCap::apply(QByteArrayView utf8, qint64 maxBytes)
{
    if (maxBytes <= 0 || utf8.size() <= maxBytes)
        return QString::fromUtf8(utf8);
    // Back to the first byte of the character that does not fit whole; a UTF-8 character has
    // at most three continuation bytes (anything longer is not UTF-8: cut where the cap says).
    qsizetype cut = maxBytes;
    for (int step = 0; step < 3 && cut > 0 && isContinuationByte(utf8.at(cut)); ++step)
        --cut;
    if (isContinuationByte(utf8.at(cut)))
        cut = maxBytes;
    return QString::fromUtf8(utf8.first(cut)) + marker(utf8.size() - cut);
}

QString HistoryFieldCap::apply(const QString& text, qint64 maxBytes)
{
    // Three bytes of UTF-8 at most per UTF-16 unit: most texts need no conversion to know.
    if (maxBytes <= 0 || text.size() <= maxBytes / 3)
        return text;
    return apply(QByteArrayView(text.toUtf8()), maxBytes);
}

QString HistoryFieldCap::marker(qint64 droppedBytes)
{
    // The C locale: the same text whatever the user's language, for search and for tests.
    return QStringLiteral("\n[... %1 not kept in the history]")
        .arg(QLocale::c().formattedDataSize(droppedBytes, 1, QLocale::DataSizeIecFormat));
}

} // namespace csm
