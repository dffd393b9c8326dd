#include "ui/widgets/CodeHighlighter.h"

#include <QColor>
#include <QFont>

#include <algorithm>

namespace csm {

namespace {

QRegularExpression keywords(const QStringList& words)
{
    return QRegularExpression(QStringLiteral("\\b(%1)\\b").arg(words.join(QLatin1Char('|'))));
}

const QStringList& pythonKeywords()
{
    static const QStringList words =
        QStringLiteral("False None True and as assert async await break class "
                       "continue def del elif else except finally for from "
                       "global if import in is lambda nonlocal not or pass "
                       "raise return try while with yield")
            .split(QLatin1Char(' '));
    return words;
}

const QStringList& javaScriptKeywords()
{
    static const QStringList words =
        QStringLiteral("async await break case catch class const continue debugger default delete "
                       "do else export extends false finally for function if import in "
                       "instanceof let new null of return super switch this throw true try "
                       "typeof undefined var void while with yield")
            .split(QLatin1Char(' '));
    return words;
}

} // namespace

CodeHighlighter::CodeHighlighter(QTextDocument* document)
    : QSyntaxHighlighter(document)
{}

QTextCharFormat CodeHighlighter::format(Kind kind, bool dark)
{
    // Each colour twice: on a light base, then on a dark one (a dark blue keyword on a dark
    // background could not be read).
    const auto pick = [dark](QRgb onLight, QRgb onDark) {
        return QColor(dark ? onDark : onLight);
    };
    QTextCharFormat format;
    switch (kind) {
    case Kind::Keyword:
        format.setForeground(pick(0x0033b3, 0x82aaff));
        format.setFontWeight(QFont::Bold);
        break;
    case Kind::String:
        format.setForeground(pick(0x067d17, 0x9ece6a));
        break;
    case Kind::Number:
        format.setForeground(pick(0x1750eb, 0xf78c6c));
        break;
    case Kind::Comment:
        format.setForeground(pick(0x8c8c8c, 0x8f98b0));
        format.setFontItalic(true);
        break;
    }
    return format;
}

void CodeHighlighter::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
    rehighlight();
}

void CodeHighlighter::setLanguage(const QString& languageId)
{
    m_language = languageId == QLatin1String("python")       ? Language::Python
                 : languageId == QLatin1String("javascript") ? Language::JavaScript
                                                             : Language::None;
    m_rules.clear();
    if (m_language != Language::None) {
        const bool python = m_language == Language::Python;
        m_rules.append({keywords(python ? pythonKeywords() : javaScriptKeywords()), Kind::Keyword});
        m_rules.append({QRegularExpression(QStringLiteral("\\b\\d+(\\.\\d+)?\\b")), Kind::Number});
        // Later rules win where they overlap: a keyword inside a string or comment is not one.
        m_rules.append(
            {QRegularExpression(
                 python ? QStringLiteral(R"("([^"\\]|\\.)*"|'([^'\\]|\\.)*')")
                        : QStringLiteral(R"("([^"\\]|\\.)*"|'([^'\\]|\\.)*'|`([^`\\]|\\.)*`)")),
             Kind::String});
        m_rules.append(
            {QRegularExpression(python ? QStringLiteral("#[^\\n]*") : QStringLiteral("//[^\\n]*")),
             Kind::Comment});
    }
    rehighlight();
}

void CodeHighlighter::highlightBlock(const QString& text)
{
    setCurrentBlockState(Plain);
    if (m_language == Language::None)
        return;
    for (const Rule& rule : std::as_const(m_rules)) {
        auto matches = rule.pattern.globalMatch(text);
        while (matches.hasNext()) {
            const auto match = matches.next();
            setFormat(int(match.capturedStart()), int(match.capturedLength()),
                      format(rule.kind, m_dark));
        }
    }
    continueMultiLine(text);
}

void CodeHighlighter::continueMultiLine(const QString& text)
{
    // The constructs that span lines: """...""" and '''...''' in Python, /* ... */ in
    // JavaScript. A block that starts inside one is coloured up to its end (or wholly).
    int state = std::max(previousBlockState(), int(Plain));
    qsizetype position = 0;
    for (;;) {
        qsizetype from = position;
        if (state == Plain) {
            qsizetype start = -1;
            for (const int candidate : {InTripleDouble, InTripleSingle, InBlockComment}) {
                if ((candidate == InBlockComment) == (m_language == Language::Python))
                    continue;
                const qsizetype found = text.indexOf(opener(candidate), position);
                if (found >= 0 && (start < 0 || found < start)) {
                    start = found;
                    state = candidate;
                }
            }
            if (start < 0)
                return;
            from = start;
            position = start + opener(state).size();
        }
        const QLatin1String end = closer(state);
        const QTextCharFormat colour =
            format(state == InBlockComment ? Kind::Comment : Kind::String, m_dark);
        const qsizetype found = text.indexOf(end, position);
        if (found < 0) {
            setFormat(int(from), int(text.size() - from), colour);
            setCurrentBlockState(state);
            return;
        }
        position = found + end.size();
        setFormat(int(from), int(position - from), colour);
        state = Plain;
    }
}

QLatin1String CodeHighlighter::opener(int state)
{
    switch (state) {
    case InTripleDouble:
        return QLatin1String("\"\"\"");
    case InTripleSingle:
        return QLatin1String("'''");
    default:
        return QLatin1String("/*");
    }
}

QLatin1String CodeHighlighter::closer(int state)
{
    return state == InBlockComment ? QLatin1String("*/") : opener(state);
}

} // namespace csm
