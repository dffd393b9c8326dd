#include "sandbox/LatestOutputLine.h"
#include "secrets/SecretRedactor.h"

#include <QTest>

using csm::LatestOutputLine;

class tst_LatestOutputLine final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void text_data();
    void text();
    void longLinesAreCut();
    void onlyATailIsKept();
    void secretsAreRedactedBeforeTheCut();
};

void tst_LatestOutputLine::text_data()
{
    QTest::addColumn<QByteArrayList>("chunks");
    QTest::addColumn<QString>("expected");

    QTest::newRow("nothing") << QByteArrayList{} << QString();
    QTest::newRow("whitespace only") << QByteArrayList{"\n", "  \n\t\n"} << QString();
    QTest::newRow("one line") << QByteArrayList{"hello\n"} << QStringLiteral("hello");
    QTest::newRow("unfinished line counts") << QByteArrayList{"a\n", "b"} << QStringLiteral("b");
    QTest::newRow("trailing blank lines are skipped")
        << QByteArrayList{"step 3\n\n\n"} << QStringLiteral("step 3");
    QTest::newRow("line split over chunks")
        << QByteArrayList{"first\nsec", "ond\n"} << QStringLiteral("second");
    QTest::newRow("progress bar: the last version")
        << QByteArrayList{"10%\r50%\r", "90%\r"} << QStringLiteral("90%");
    QTest::newRow("crlf") << QByteArrayList{"done\r\n"} << QStringLiteral("done");
    QTest::newRow("tabs and escapes become spaces")
        << QByteArrayList{"a\tb\x1b[0m c\n"} << QStringLiteral("a b [0m c");
    QTest::newRow("invalid UTF-8 is replaced")
        << QByteArrayList{"caf\xc3\n"} << QStringLiteral("caf\uFFFD");
    QTest::newRow("stderr after stdout: whichever came last")
        << QByteArrayList{"out line\n", "Traceback: boom\n"} << QStringLiteral("Traceback: boom");
}

void tst_LatestOutputLine::text()
{
    QFETCH(QByteArrayList, chunks);
    QFETCH(QString, expected);
    LatestOutputLine line;
    for (const QByteArray& chunk : chunks)
        line.append(chunk);
    QCOMPARE(line.text(), expected);
}

void tst_LatestOutputLine::longLinesAreCut()
{
    LatestOutputLine line;
    line.append(QByteArray(1000, 'x') + '\n');
    const QString text = line.text();
    QCOMPARE(text.size(), LatestOutputLine::kMaxCharacters);
    QVERIFY(text.endsWith(QChar(0x2026)));
}

void tst_LatestOutputLine::onlyATailIsKept()
{
    LatestOutputLine line;
    for (int i = 0; i < 100'000; ++i)
        line.append(QByteArray::number(i) + '\n');
    QCOMPARE(line.text(), QStringLiteral("99999"));
}

void tst_LatestOutputLine::secretsAreRedactedBeforeTheCut()
{
    // A value across the 200th character: cut first, what is left would not match it.
    const csm::SecretRedactor redactor({{QStringLiteral("TOKEN"), "tok-5f2c9e81d07a"}});
    LatestOutputLine line;
    line.append(QByteArray(190, 'x') + "tok-5f2c9e81d07a\n");
    QVERIFY2(!line.text(&redactor).contains(QLatin1String("tok-")),
             qPrintable(line.text(&redactor)));
    QVERIFY(line.text().contains(QLatin1String("tok-5f2c9")));
    // One line of a multi-line value, as a program prints a key.
    const csm::SecretRedactor pem(
        {{QStringLiteral("PEM_KEY"),
          "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END KEY-----"}});
    LatestOutputLine printed;
    printed.append("key line: MIIEvQIBADANBgkqhkiG9w0B\n");
    QCOMPARE(printed.text(&pem), QStringLiteral("key line: [secret:PEM_KEY]"));
    // The key's first lines as it is being printed: the beginning of the value, held back.
    LatestOutputLine begun;
    begun.append("-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n");
    QCOMPARE(begun.text(&pem), QString());
    // A line longer than the kept tail, whose front was cut inside a value: the value's end,
    // which matches nothing alone, is not shown either.
    LatestOutputLine longLine;
    longLine.append("tok-5f2c9e81d07a" + QByteArray(4096 - 8, 'y'));
    QVERIFY2(!longLine.text(&redactor).contains(QLatin1String("d07a")),
             qPrintable(longLine.text(&redactor)));
    QVERIFY(longLine.text().startsWith(QLatin1String("9e81d07a")));
    // The start of a value, the rest still to come: held back.
    LatestOutputLine unfinished;
    unfinished.append("token: tok-5f2c");
    QCOMPARE(unfinished.text(&redactor), QStringLiteral("token:"));
}

QTEST_GUILESS_MAIN(tst_LatestOutputLine)
#include "tst_LatestOutputLine.moc"
