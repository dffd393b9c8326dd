#include "core/VisibleText.h"

#include <QChar>

namespace csm {

namespace {

// Default_Ignorable_Code_Point characters that are not format characters (QChar::Other_Format):
// they draw nothing, yet are letters or marks to a compiler.
constexpr struct
{
    char32_t first;
    char32_t last;
} kIgnorableNonFormat[] = {
    {0x034F, 0x034F},   // combining grapheme joiner
    {0x115F, 0x1160},   // Hangul choseong and jungseong fillers
    {0x17B4, 0x17B5},   // Khmer inherent vowels
    {0x180B, 0x180F},   // Mongolian free variation selectors
    {0x3164, 0x3164},   // Hangul filler: an "invisible" identifier letter
    {0xFE00, 0xFE0F},   // variation selectors
    {0xFFA0, 0xFFA0},   // halfwidth Hangul filler
    {0xE0100, 0xE01EF}, // variation selectors supplement
};

} // namespace

VisibleText::VisibleText(const QString& original)
{
    m_text.reserve(original.size());
    const qsizetype size = original.size();
    for (qsizetype i = 0; i < size; ++i) {
        const QChar unit = original.at(i);
        char32_t codePoint = unit.unicode();
        qsizetype units = 1;
        if (unit.isHighSurrogate() && i + 1 < size && original.at(i + 1).isLowSurrogate()) {
            codePoint = QChar::surrogateToUcs4(unit, original.at(i + 1));
            units = 2;
        }
        if (codePoint == u'\r' && i + 1 < size && original.at(i + 1) == u'\n') {
            // A CRLF line break is a line break: shown as one, without a marker on every line
            // of a Windows file (and with text positions that match a QTextDocument's).
            continue;
        }
        if (!isHidden(codePoint)) {
            m_text.append(original.constData() + i, units);
            i += units - 1;
            continue;
        }
        const QString shown = marker(codePoint);
        m_markers.append({m_text.size(), shown.size(), codePoint});
        m_text += shown;
        i += units - 1;
    }
}

bool VisibleText::isHidden(char32_t codePoint)
{
    if (codePoint == u'\t' || codePoint == u'\n')
        return false;
    switch (QChar::category(codePoint)) {
    case QChar::Other_Control:
    case QChar::Other_Format:
    case QChar::Other_Surrogate:
    case QChar::Separator_Line:
    case QChar::Separator_Paragraph:
        return true;
    default:
        break;
    }
    for (const auto& range : kIgnorableNonFormat) {
        if (codePoint >= range.first && codePoint <= range.last)
            return true;
    }
    return false;
}

QString VisibleText::marker(char32_t codePoint)
{
    return QStringLiteral("\u27E6U+%1\u27E7")
        .arg(static_cast<uint>(codePoint), 4, 16, QLatin1Char('0'))
        .toUpper();
}

QString VisibleText::toHtml() const
{
    QString html;
    qsizetype done = 0;
    for (const Marker& shown : m_markers) {
        html += m_text.mid(done, shown.position - done).toHtmlEscaped();
        html += QStringLiteral("<span style=\"background-color:#ffd54f;color:#000000\">") +
                m_text.mid(shown.position, shown.length).toHtmlEscaped() +
                QStringLiteral("</span>");
        done = shown.position + shown.length;
    }
    return html + m_text.mid(done).toHtmlEscaped();
}

} // namespace csm
