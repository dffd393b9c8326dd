// What a client chose (its name, a request target) as it reaches a log line: escaped, so that it
// cannot start a line of its own, and cut short.
#include "core/LogText.h"

#include <QTest>

using csm::LogText;

class tst_LogText final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void escaped_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("logged");
        QTest::newRow("plain") << QStringLiteral("claude-code 2.0")
                               << QStringLiteral("claude-code 2.0");
        QTest::newRow("empty") << QString() << QString();
        QTest::newRow("LF") << QStringLiteral("a\ncode-sandbox-mcp forged")
                            << QStringLiteral("a\\x0acode-sandbox-mcp forged");
        QTest::newRow("CR LF") << QStringLiteral("a\r\nb") << QStringLiteral("a\\x0d\\x0ab");
        QTest::newRow("tab, NUL, ESC, DEL")
            << QStringLiteral("a\tb") + QChar(u'\0') + QStringLiteral("\x1b[2J\x7f")
            << QStringLiteral("a\\x09b\\x00\\x1b[2J\\x7f");
        QTest::newRow("C1 control (NEL)")
            << QStringLiteral("a\u0085b") << QStringLiteral("a\\x85b");
        QTest::newRow("line separator")
            << QStringLiteral("a\u2028b") << QStringLiteral("a\\u{2028}b");
        QTest::newRow("right-to-left override")
            << QStringLiteral("a\u202eb") << QStringLiteral("a\\u{202e}b");
        QTest::newRow("backslash") << QStringLiteral("a\\x0ab") << QStringLiteral("a\\\\x0ab");
        QTest::newRow("letters of other scripts") << QStringLiteral("Ünïcödé 日本 🙂")
                                                  << QStringLiteral("Ünïcödé 日本 🙂");
    }

    void escaped()
    {
        QFETCH(QString, text);
        QFETCH(QString, logged);
        QCOMPARE(LogText::escaped(text), logged);
        QVERIFY(!LogText::escaped(text).contains(QLatin1Char('\n')));
        QVERIFY(!LogText::escaped(text).contains(QLatin1Char('\r')));
    }

    void longTextIsCut()
    {
        const QString text(100'000, QLatin1Char('x'));
        const QString logged = LogText::escaped(text);
        QCOMPARE(logged, QString(200, QLatin1Char('x')) + QStringLiteral("…(99800 more)"));
        QCOMPARE(LogText::escaped(QStringLiteral("abcdef"), 3), QStringLiteral("abc…(3 more)"));
        // Escapes count against the length: a line of line feeds stays short.
        const QString feeds(10'000, QLatin1Char('\n'));
        QVERIFY(LogText::escaped(feeds).size() < 230);
        QVERIFY(LogText::escaped(feeds).endsWith(QStringLiteral(" more)")));
        // Exactly the limit: nothing is said to be missing.
        QCOMPARE(LogText::escaped(QString(200, QLatin1Char('y'))), QString(200, QLatin1Char('y')));
    }

    void bytesAreLatin1AndCut()
    {
        QCOMPARE(LogText::escaped(QByteArrayView("/mcp?x=\r\n1")),
                 QStringLiteral("/mcp?x=\\x0d\\x0a1"));
        const QByteArray target = "/" + QByteArray(64 * 1024, 'a');
        const QString logged = LogText::escaped(QByteArrayView(target));
        QVERIFY2(logged.size() < 230, qPrintable(logged));
        QVERIFY(logged.endsWith(QStringLiteral("…(65337 more)")));
    }
};

QTEST_GUILESS_MAIN(tst_LogText)
#include "tst_LogText.moc"
