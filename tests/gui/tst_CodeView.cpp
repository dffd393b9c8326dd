// CodeView and CodeHighlighter: the run detail pane's program listing (offscreen platform).
#include "ui/widgets/CodeHighlighter.h"
#include "ui/widgets/CodeView.h"

#include <QTest>
#include <QTextBlock>
#include <QTextLayout>

using csm::CodeHighlighter;
using csm::CodeView;
using Kind = CodeHighlighter::Kind;

namespace {

// What the character at `column` of line `line` is coloured as; nothing when it is plain.
std::optional<Kind> kindAt(const QTextDocument& document, int line, int column, bool dark = false)
{
    const QTextBlock block = document.findBlockByNumber(line);
    std::optional<Kind> found;
    for (const QTextLayout::FormatRange& range : block.layout()->formats()) {
        if (column < range.start || column >= range.start + range.length)
            continue;
        for (const Kind kind : {Kind::Keyword, Kind::String, Kind::Number, Kind::Comment}) {
            if (range.format.foreground() == CodeHighlighter::format(kind, dark).foreground())
                found = kind;
        }
    }
    return found;
}

} // namespace

class tst_CodeView final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void python()
    {
        CodeView view;
        view.showCode(QStringLiteral("def f():  # def in a comment\n"
                                     "    s = \"if x\"\n"
                                     "    return 42\n"
                                     "doc = \"\"\"\n"
                                     "if inside\n"
                                     "\"\"\"\n"
                                     "x = 1"),
                      QStringLiteral("python"));
        const QTextDocument& document = *view.document();
        QCOMPARE(kindAt(document, 0, 0), Kind::Keyword);  // def
        QCOMPARE(kindAt(document, 0, 4), std::nullopt);   // f
        QCOMPARE(kindAt(document, 0, 10), Kind::Comment); // #
        QCOMPARE(kindAt(document, 0, 12), Kind::Comment); // def, inside the comment
        QCOMPARE(kindAt(document, 1, 9), Kind::String);   // if, inside the string
        QCOMPARE(kindAt(document, 2, 4), Kind::Keyword);  // return
        QCOMPARE(kindAt(document, 2, 11), Kind::Number);  // 42
        QCOMPARE(kindAt(document, 3, 6), Kind::String);   // """ opens
        QCOMPARE(kindAt(document, 4, 0), Kind::String);   // a whole line inside it
        QCOMPARE(kindAt(document, 5, 0), Kind::String);   // """ closes
        QCOMPARE(kindAt(document, 6, 0), std::nullopt);   // plain again
        QCOMPARE(kindAt(document, 6, 4), Kind::Number);
    }

    void javaScript()
    {
        CodeView view;
        view.showCode(QStringLiteral("/* a\nconst inside */ const x = `t`; // end"),
                      QStringLiteral("javascript"));
        const QTextDocument& document = *view.document();
        QCOMPARE(kindAt(document, 0, 0), Kind::Comment);
        QCOMPARE(kindAt(document, 1, 0), Kind::Comment);  // const, still in the comment
        QCOMPARE(kindAt(document, 1, 17), Kind::Keyword); // const, after it
        QCOMPARE(kindAt(document, 1, 27), Kind::String);  // `t`
        QCOMPARE(kindAt(document, 1, 32), Kind::Comment); // // end
    }

    void plainTextForAnotherLanguage()
    {
        CodeView view;
        view.showCode(QStringLiteral("def if 42 # x"), QStringLiteral("ruby"));
        for (int column = 0; column < 13; ++column)
            QCOMPARE(kindAt(*view.document(), 0, column), std::nullopt);
    }

    // On a dark palette the code takes the dark colours, and changes with the palette: every
    // kind stands out from the dark base as much as the plain text does, give or take.
    void aDarkPaletteGivesReadableColours()
    {
        CodeView view;
        QPalette dark = view.palette();
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        dark.setColor(QPalette::Text, QColor(0xdd, 0xdd, 0xdd));
        view.setPalette(dark);
        view.showCode(QStringLiteral("def f():  # note\n    return \"x\" + 42"),
                      QStringLiteral("python"));
        const QTextDocument& document = *view.document();
        QCOMPARE(kindAt(document, 0, 0, true), Kind::Keyword);
        QCOMPARE(kindAt(document, 0, 10, true), Kind::Comment);
        QCOMPARE(kindAt(document, 1, 11, true), Kind::String);
        QCOMPARE(kindAt(document, 1, 17, true), Kind::Number);
        for (const Kind kind : {Kind::Keyword, Kind::String, Kind::Number, Kind::Comment}) {
            const QColor colour = CodeHighlighter::format(kind, true).foreground().color();
            QVERIFY2(colour.lightness() >= 140,
                     qPrintable(QStringLiteral("%1 on a dark base").arg(colour.name())));
        }
        // Back to a light palette: the light colours again.
        view.setPalette(QPalette(Qt::black, Qt::white, Qt::white, Qt::gray, Qt::gray, Qt::black,
                                 Qt::black, Qt::white, Qt::white));
        QCOMPARE(kindAt(document, 0, 0, false), Kind::Keyword);
    }

    void lineNumbersGrowWithTheListing()
    {
        CodeView view;
        view.showCode(QStringLiteral("x = 1"), QStringLiteral("python"));
        const int narrow = view.gutterWidth();
        QVERIFY(narrow > 0);
        view.showCode(QString(QStringLiteral("x = 1\n")).repeated(1200), QStringLiteral("python"));
        QVERIFY(view.gutterWidth() > narrow); // four digits need more room than two
        QVERIFY(view.isReadOnly());
    }
};

QTEST_MAIN(tst_CodeView)
#include "tst_CodeView.moc"
