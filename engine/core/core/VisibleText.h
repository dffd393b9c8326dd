#pragma once

#include <QList>
#include <QString>

namespace csm {

// Text as a person can check it: every character that shows nothing, or that changes how the
// characters around it are shown, is replaced by a marker such as ⟦U+202E⟧. "Trojan Source"
// code (CVE-2021-42574) uses bidirectional controls to look like something else than what runs;
// zero-width and other invisible characters hide or join words. With the markers, what is shown
// is what is there. Replaced: control characters but tab and line feed (and the carriage return
// of a CRLF, which becomes a plain line feed), format characters (zero-width space and joiners,
// U+FEFF, the soft hyphen, bidirectional embeddings, overrides, isolates and marks, U+061C),
// line and paragraph separators, lone surrogates, and the other characters Unicode says to show
// as nothing (variation selectors, Hangul fillers...).
class VisibleText final
{
public:
    // Where a marker stands in text(), in UTF-16 units.
    struct Marker
    {
        qsizetype position = 0;
        qsizetype length = 0;
        char32_t codePoint = 0;

        friend bool operator==(const Marker&, const Marker&) = default;
    };

    explicit VisibleText(const QString& original);

    const QString& text() const { return m_text; }
    const QList<Marker>& markers() const { return m_markers; }
    bool hasHiddenCharacters() const { return !m_markers.isEmpty(); }
    // text() as HTML, for a label: escaped, each marker in a highlighted span.
    QString toHtml() const;

    static bool isHidden(char32_t codePoint);
    // "⟦U+202E⟧".
    static QString marker(char32_t codePoint);

private:
    QString m_text;
    QList<Marker> m_markers;
};

} // namespace csm
