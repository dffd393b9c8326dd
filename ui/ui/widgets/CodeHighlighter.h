#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace csm {

// Syntax colours for the programs the sandboxes run: Python or JavaScript keywords, strings,
// numbers and comments, including Python's triple-quoted strings and JavaScript's block comments
// across lines. A reading aid for the run detail pane, not a parser: it never needs to be right
// about odd corners, only quick and unsurprising.
class CodeHighlighter final : public QSyntaxHighlighter
{
    Q_OBJECT

public:
    enum class Language
    {
        None,
        Python,
        JavaScript,
    };

    enum class Kind
    {
        Keyword,
        String,
        Number,
        Comment,
    };

    explicit CodeHighlighter(QTextDocument* document);

    // "python", "javascript" (LanguageTraits ids) or anything else for plain text; rehighlights.
    void setLanguage(const QString& languageId);
    // `dark`: for a dark palette's base.
    static QTextCharFormat format(Kind kind, bool dark);
    // Colours for a dark palette, or a light one; rehighlights.
    void setDark(bool dark);

protected:
    void highlightBlock(const QString& text) override;

private:
    bool m_dark = false;

    struct Rule
    {
        QRegularExpression pattern;
        Kind kind;
    };

    // Multi-line constructs carried from one block to the next.
    enum BlockState
    {
        Plain = 0,
        InTripleDouble = 1,
        InTripleSingle = 2,
        InBlockComment = 3,
    };

    void continueMultiLine(const QString& text);
    static QLatin1String opener(int state);
    static QLatin1String closer(int state);

    Language m_language = Language::None;
    QList<Rule> m_rules;
};

} // namespace csm
