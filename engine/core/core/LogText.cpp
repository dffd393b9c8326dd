#include "core/LogText.h"

#include <algorithm>

namespace csm {

namespace {
// Characters that move the cursor, end a line or reorder what follows on a terminal or in a log
// viewer.
bool needsEscape(char32_t c)
{
    return c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
           (c >= 0x200e && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
           (c >= 0x2066 && c <= 0x2069);
}

QString escape(char32_t c)
{
    if (c <= 0xff)
        return QStringLiteral("\\x%1").arg(uint(c), 2, 16, QLatin1Char('0'));
    return QStringLiteral("\\u{%1}").arg(uint(c), 4, 16, QLatin1Char('0'));
}

// `text` escaped until the result holds `maxCharacters`, then a note of how many of the
// `totalLength` characters were left out.
QString escapeAndCut(QStringView text, qsizetype totalLength, qsizetype maxCharacters)
{
    QString result;
    result.reserve(std::min(text.size(), maxCharacters) + 16);
    qsizetype taken = 0;
    while (taken < text.size() && result.size() < maxCharacters) {
        char32_t c = text[taken].unicode();
        qsizetype length = 1;
        if (QChar::isHighSurrogate(c) && taken + 1 < text.size() &&
            text[taken + 1].isLowSurrogate()) {
            c = QChar::surrogateToUcs4(text[taken], text[taken + 1]);
            length = 2;
        }
        if (c == U'\\')
            result += QStringLiteral("\\\\");
        else if (needsEscape(c))
            result += escape(c);
        else
            result += text.sliced(taken, length);
        taken += length;
    }
    if (taken < totalLength)
        result += QStringLiteral("…(%1 more)").arg(totalLength - taken);
    return result;
}
} // namespace

QString LogText::escaped(QStringView text, qsizetype maxCharacters)
{
    return escapeAndCut(text.first(std::min(text.size(), maxCharacters)), text.size(),
                        maxCharacters);
}

QString LogText::escaped(QByteArrayView bytes, qsizetype maxCharacters)
{
    // Only what can be shown is converted: a 64 KiB field costs no more than its first part.
    const QByteArrayView shown = bytes.first(std::min(bytes.size(), maxCharacters));
    return escapeAndCut(QString::fromLatin1(shown), bytes.size(), maxCharacters);
}

} // namespace csm
