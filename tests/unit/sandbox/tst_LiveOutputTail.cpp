// What a live view gets of a stream a program is still printing: all of a short one, the
// latest lines of a long one, never a secret, not even the part of one the cut would leave.
#include "sandbox/LiveOutputTail.h"
#include "secrets/SecretRedactor.h"

#include <QTest>

using csm::LiveOutputTail;
using csm::SecretRedactor;

class tst_LiveOutputTail final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aShortStreamIsShownWholeAndRedacted()
    {
        const SecretRedactor redactor({{QStringLiteral("TOKEN"), "s3cr3t-value"}});
        QCOMPARE(LiveOutputTail::of("key=s3cr3t-value\nok\n", redactor, 1024),
                 QStringLiteral("key=[secret:TOKEN]\nok\n"));
        QCOMPARE(LiveOutputTail::of({}, redactor, 1024), QString());
    }

    void aLongStreamShowsItsLatestLines()
    {
        QByteArray printed;
        for (int line = 0; line < 1000; ++line)
            printed += "line " + QByteArray::number(line) + '\n';
        const QString tail = LiveOutputTail::of(printed, SecretRedactor(), 100);
        const QStringList lines = tail.split(u'\n');
        QVERIFY2(lines.constFirst().startsWith(QStringLiteral("[… ")), qPrintable(tail));
        QVERIFY2(lines.constFirst().contains(QLatin1String("earlier bytes")), qPrintable(tail));
        // Whole lines only, the last one printed at the end.
        QVERIFY2(lines.at(1).startsWith(QLatin1String("line ")), qPrintable(tail));
        QVERIFY(tail.endsWith(QLatin1String("line 999\n")));
        QVERIFY(tail.size() <= 100 + lines.constFirst().size() + 1);
        // How much is left out, in bytes: the first line shown is where the count ends.
        const qsizetype omitted = lines.constFirst().section(u' ', 1, 1).toLongLong();
        QCOMPARE(printed.mid(omitted, lines.at(1).size()), lines.at(1).toUtf8());
    }

    // Wherever the cut falls in a secret, no part of it is shown.
    void aSecretTheCutSplitsIsNotShownInPart()
    {
        const QByteArray secret = "ABCDEFGHIJKLMNOP";
        const SecretRedactor redactor({{QStringLiteral("KEY"), secret}});
        for (qsizetype before = 0; before <= secret.size(); ++before) {
            // No newline to cut at: the cut falls in the secret itself.
            const QByteArray printed = QByteArray(200, 'x') + secret + QByteArray(40, 'y');
            const qsizetype maxBytes = 40 + before;
            const QString tail = LiveOutputTail::of(printed, redactor, maxBytes);
            for (qsizetype length = 4; length <= secret.size(); ++length) {
                for (qsizetype from = 0; from + length <= secret.size(); ++from) {
                    QVERIFY2(!tail.contains(QString::fromLatin1(secret.mid(from, length))),
                             qPrintable(QStringLiteral("%1 bytes: %2").arg(maxBytes).arg(tail)));
                }
            }
        }
    }

    // A secret printed in two writes: its start is held back until the rest is there, then the
    // whole is redacted. Text that only looks like a secret's start shows once more follows.
    void theStartOfASecretStillBeingPrintedIsHeldBack()
    {
        const SecretRedactor redactor({{QStringLiteral("KEY"), "ABCDEFGHIJKLMNOP"}});
        QCOMPARE(LiveOutputTail::of("token: ABCDEFGHIJ", redactor, 1024),
                 QStringLiteral("token: "));
        QCOMPARE(LiveOutputTail::of("token: ABCDEFGHIJKLMNOP\n", redactor, 1024),
                 QStringLiteral("token: [secret:KEY]\n"));
        QCOMPARE(LiveOutputTail::of("ABC", redactor, 1024), QString());
        QCOMPARE(LiveOutputTail::of("ABCx", redactor, 1024), QStringLiteral("ABCx"));
        // The same at the end of a long stream, past the cut.
        const QByteArray longStream = QByteArray(5000, 'x') + "\nkey ABCDEFGHIJKLMNO";
        const QString tail = LiveOutputTail::of(longStream, redactor, 100);
        QVERIFY2(!tail.contains(QLatin1String("ABCD")), qPrintable(tail));
        QVERIFY2(tail.endsWith(QLatin1String("key ")), qPrintable(tail));
    }

    void aCharacterTheCutSplitsIsLeftOut()
    {
        QByteArray printed;
        for (int i = 0; i < 100; ++i)
            printed += "é"; // two bytes each, no newline
        const QString tail = LiveOutputTail::of(printed, SecretRedactor(), 51);
        QVERIFY2(!tail.contains(QChar::ReplacementCharacter), qPrintable(tail));
        QVERIFY(tail.endsWith(QString(25, u'é')));
    }
};

QTEST_GUILESS_MAIN(tst_LiveOutputTail)
#include "tst_LiveOutputTail.moc"
