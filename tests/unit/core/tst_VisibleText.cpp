// VisibleText: what the approval dialog shows of a call's code and of the client's name, so that
// invisible and text-direction characters ("Trojan Source") cannot make code look harmless.
#include "core/VisibleText.h"

#include <QTest>

using csm::VisibleText;

class tst_VisibleText final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ordinaryTextIsUnchanged_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << QString();
        QTest::newRow("code") << QStringLiteral("def f(x):\n\treturn x * 2  # ok\n");
        QTest::newRow("accents and symbols") << QStringLiteral("print('café €5 – naïve')");
        QTest::newRow("other scripts") << QStringLiteral("s = 'שלום' + 'مرحبا' + '日本語'");
        QTest::newRow("emoji") << QStringLiteral("print('\U0001F600 \U0001F680')");
        QTest::newRow("spaces") << QStringLiteral("a\u00A0b\u2003c"); // they show as spaces
    }

    void ordinaryTextIsUnchanged()
    {
        QFETCH(QString, text);
        const VisibleText visible(text);
        QCOMPARE(visible.text(), text);
        QVERIFY(!visible.hasHiddenCharacters());
        QCOMPARE(visible.toHtml(), text.toHtmlEscaped());
    }

    void hiddenCharactersBecomeMarkers_data()
    {
        QTest::addColumn<QString>("hidden");
        QTest::addColumn<QString>("marker");
        const auto row = [](const char* name, char32_t codePoint, const char* marker) {
            // Not QString::fromUcs4, which takes U+FEFF for a byte order mark and drops it.
            QTest::newRow(name) << QStringView(QChar::fromUcs4(codePoint)).toString()
                                << QString::fromUtf8(marker);
        };
        row("zero-width space", 0x200B, "⟦U+200B⟧");
        row("zero-width non-joiner", 0x200C, "⟦U+200C⟧");
        row("zero-width joiner", 0x200D, "⟦U+200D⟧");
        row("byte order mark", 0xFEFF, "⟦U+FEFF⟧");
        row("soft hyphen", 0x00AD, "⟦U+00AD⟧");
        row("word joiner", 0x2060, "⟦U+2060⟧");
        row("LRE", 0x202A, "⟦U+202A⟧");
        row("RLE", 0x202B, "⟦U+202B⟧");
        row("PDF", 0x202C, "⟦U+202C⟧");
        row("LRO", 0x202D, "⟦U+202D⟧");
        row("RLO", 0x202E, "⟦U+202E⟧");
        row("LRI", 0x2066, "⟦U+2066⟧");
        row("RLI", 0x2067, "⟦U+2067⟧");
        row("FSI", 0x2068, "⟦U+2068⟧");
        row("PDI", 0x2069, "⟦U+2069⟧");
        row("LRM", 0x200E, "⟦U+200E⟧");
        row("RLM", 0x200F, "⟦U+200F⟧");
        row("Arabic letter mark", 0x061C, "⟦U+061C⟧");
        row("NUL", 0x0000, "⟦U+0000⟧");
        row("escape", 0x001B, "⟦U+001B⟧");
        row("backspace", 0x0008, "⟦U+0008⟧");
        row("lone carriage return", 0x000D, "⟦U+000D⟧");
        row("delete", 0x007F, "⟦U+007F⟧");
        row("C1 control", 0x0085, "⟦U+0085⟧");
        row("line separator", 0x2028, "⟦U+2028⟧");
        row("paragraph separator", 0x2029, "⟦U+2029⟧");
        row("Hangul filler", 0x3164, "⟦U+3164⟧");
        row("variation selector", 0xFE0F, "⟦U+FE0F⟧");
        row("tag character", 0xE0041, "⟦U+E0041⟧");
        row("variation selector supplement", 0xE0100, "⟦U+E0100⟧");
    }

    void hiddenCharactersBecomeMarkers()
    {
        QFETCH(QString, hidden);
        QFETCH(QString, marker);
        const VisibleText visible(QStringLiteral("ab") + hidden + QStringLiteral("cd"));
        QCOMPARE(visible.text(), QStringLiteral("ab") + marker + QStringLiteral("cd"));
        QCOMPARE(visible.markers().size(), 1);
        const VisibleText::Marker& found = visible.markers().constFirst();
        QCOMPARE(found.position, 2);
        QCOMPARE(found.length, marker.size());
        QCOMPARE(visible.text().mid(found.position, found.length), marker);
        QCOMPARE(found.codePoint, hidden.toUcs4().constFirst());
        QVERIFY(visible.hasHiddenCharacters());
    }

    // The classic Trojan Source example: a comment that a reader sees closing before the code,
    // while the compiler reads the code as part of it.
    void trojanSourceShowsEveryControl()
    {
        const QString code = QStringLiteral("access_level = \"user\"\n"
                                            "if access_level != \"user\u202E \u2066# Check if "
                                            "admin\u2069 \u2066\": # now the real code\n"
                                            "    print(\"You are an admin.\")\n");
        const VisibleText visible(code);
        QCOMPARE(visible.markers().size(), 4);
        QVERIFY(visible.text().contains(
            QStringLiteral("\"user⟦U+202E⟧ ⟦U+2066⟧# Check if admin⟦U+2069⟧ ⟦U+2066⟧\":")));
        for (const QChar c : visible.text()) {
            QVERIFY2(c.direction() != QChar::DirRLO && c.direction() != QChar::DirLRI &&
                         c.direction() != QChar::DirPDI,
                     "a bidirectional control is left");
        }
        // Lines stay lines.
        QCOMPARE(visible.text().count(u'\n'), 3);
    }

    void lineBreaksAndTabsStay()
    {
        // CRLF is one line break; tab and LF show as they are.
        const VisibleText visible(QStringLiteral("a\r\nb\tc\nd\re"));
        QCOMPARE(visible.text(), QStringLiteral("a\nb\tc\nd⟦U+000D⟧e"));
        QCOMPARE(visible.markers().size(), 1);
        QCOMPARE(visible.markers().constFirst().position, 7);
    }

    void loneSurrogatesAreMarked()
    {
        QString text = QStringLiteral("x");
        text += QChar(0xD800);
        text += QStringLiteral("y");
        const VisibleText visible(text);
        QCOMPARE(visible.text(), QStringLiteral("x⟦U+D800⟧y"));
    }

    void htmlIsEscapedAndMarkersHighlighted()
    {
        const VisibleText visible(QStringLiteral("<b>Claude</b>\u202E & co"));
        const QString html = visible.toHtml();
        QVERIFY2(html.startsWith(QStringLiteral("&lt;b&gt;Claude&lt;/b&gt;<span ")),
                 qPrintable(html));
        QVERIFY2(html.contains(QStringLiteral(">⟦U+202E⟧</span> &amp; co")), qPrintable(html));
        QVERIFY(!html.contains(QChar(0x202E)));
    }
};

QTEST_GUILESS_MAIN(tst_VisibleText)
#include "tst_VisibleText.moc"
