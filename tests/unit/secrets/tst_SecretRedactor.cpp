#include "secrets/SecretRedactor.h"

#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QTest>

using csm::SecretRedactor;

using Secrets = QList<QPair<QString, QByteArray>>;

class tst_SecretRedactor final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void redactBytes_data();
    void redactBytes();
    void redactString_data();
    void redactString();
    void untouchedOutputIsNotCopied();
    void shortValuesAreIgnored();
    void largeOutputWithManySecrets();
    void eachLineOfAMultiLineValue();
};

void tst_SecretRedactor::redactBytes_data()
{
    QTest::addColumn<Secrets>("secrets");
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QByteArray>("expected");

    const Secrets token{{QStringLiteral("API_TOKEN"), "s3cr3t-value"}};
    QTest::newRow("no secrets") << Secrets{} << QByteArray("s3cr3t-value")
                                << QByteArray("s3cr3t-value");
    QTest::newRow("empty output") << token << QByteArray() << QByteArray();
    QTest::newRow("not present") << token << QByteArray("nothing here")
                                 << QByteArray("nothing here");
    QTest::newRow("middle") << token << QByteArray("token=s3cr3t-value;")
                            << QByteArray("token=[secret:API_TOKEN];");
    QTest::newRow("at start") << token << QByteArray("s3cr3t-value is it")
                              << QByteArray("[secret:API_TOKEN] is it");
    QTest::newRow("at end") << token << QByteArray("it is s3cr3t-value")
                            << QByteArray("it is [secret:API_TOKEN]");
    QTest::newRow("whole output") << token << QByteArray("s3cr3t-value")
                                  << QByteArray("[secret:API_TOKEN]");
    QTest::newRow("many occurrences")
        << token << QByteArray("a s3cr3t-value b s3cr3t-value\ns3cr3t-values3cr3t-value c")
        << QByteArray(
               "a [secret:API_TOKEN] b [secret:API_TOKEN]\n[secret:API_TOKEN][secret:API_TOKEN] c");
    QTest::newRow("case matters") << token << QByteArray("S3CR3T-VALUE")
                                  << QByteArray("S3CR3T-VALUE");
    QTest::newRow("repeated pattern") << Secrets{{QStringLiteral("A"), "abab"}}
                                      << QByteArray("ababab") << QByteArray("[secret:A]ab");

    const Secrets nested{{QStringLiteral("SHORT"), "pass"},
                         {QStringLiteral("LONG"), "password123"}};
    QTest::newRow("longest first") << nested << QByteArray("x password123 pass")
                                   << QByteArray("x [secret:LONG] [secret:SHORT]");
    const Secrets nestedReversed{nested.at(1), nested.at(0)};
    QTest::newRow("longest first, whatever the order given")
        << nestedReversed << QByteArray("pass password123")
        << QByteArray("[secret:SHORT] [secret:LONG]");
    QTest::newRow("shorter value at the end of a longer one")
        << Secrets{{QStringLiteral("TAIL"), "d123"}, {QStringLiteral("LONG"), "password123"}}
        << QByteArray("password123") << QByteArray("[secret:LONG]");

    QTest::newRow("overlapping values")
        << Secrets{{QStringLiteral("A"), "abcdef"}, {QStringLiteral("B"), "defghi"}}
        << QByteArray("xabcdefghiy") << QByteArray("x[secret:A][secret:B]y");
    QTest::newRow("chain of overlaps")
        << Secrets{{QStringLiteral("A"), "11112222"},
                   {QStringLiteral("B"), "22223333"},
                   {QStringLiteral("C"), "33334444"}}
        << QByteArray("<111122223333444455>") << QByteArray("<[secret:A][secret:B][secret:C]55>");
    QTest::newRow("same value, two names")
        << Secrets{{QStringLiteral("B_NAME"), "same-value"},
                   {QStringLiteral("A_NAME"), "same-value"}}
        << QByteArray("=same-value=") << QByteArray("=[secret:A_NAME]=");
    QTest::newRow("adjacent occurrences")
        << Secrets{{QStringLiteral("A"), "ABCD"}} << QByteArray("ABCDABCD")
        << QByteArray("[secret:A][secret:A]");
    QTest::newRow("marker text is not matched again")
        << Secrets{{QStringLiteral("S"), "secret"}, {QStringLiteral("LONG"), "secret-long-value"}}
        << QByteArray("secret-long-value secret") << QByteArray("[secret:LONG] [secret:S]");

    QTest::newRow("short values untouched")
        << Secrets{{QStringLiteral("PIN"), "123"},
                   {QStringLiteral("X"), "ab"},
                   {QStringLiteral("E"), ""}}
        << QByteArray("123 ab 4123") << QByteArray("123 ab 4123");
    QTest::newRow("exactly the minimum length")
        << Secrets{{QStringLiteral("PIN"), "1234"}} << QByteArray("pin 1234.")
        << QByteArray("pin [secret:PIN].");
    QTest::newRow("UTF-8 value") << Secrets{{QStringLiteral("GRUSS"), QByteArray("grüße-🔑")}}
                                 << QByteArray("« grüße-🔑 »") << QByteArray("« [secret:GRUSS] »");
    QTest::newRow("value with a newline")
        << Secrets{{QStringLiteral("KEY"), "-----BEGIN\nabcd\n-----END"}}
        << QByteArray("key:\n-----BEGIN\nabcd\n-----END\n") << QByteArray("key:\n[secret:KEY]\n");
    QTest::newRow("binary bytes") << Secrets{{QStringLiteral("BIN"),
                                              QByteArray("\x01\xff\x00\x7f", 4)}}
                                  << QByteArray("a\x01\xff\x00\x7f"
                                                "b",
                                                6)
                                  << QByteArray("a[secret:BIN]b");
}

void tst_SecretRedactor::redactBytes()
{
    QFETCH(Secrets, secrets);
    QFETCH(QByteArray, input);
    QFETCH(QByteArray, expected);
    const SecretRedactor redactor(secrets);
    QCOMPARE(redactor.redact(input), expected);
}

void tst_SecretRedactor::redactString_data()
{
    QTest::addColumn<Secrets>("secrets");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");

    const Secrets utf8{{QStringLiteral("GRUSS"), QByteArray("grüße-🔑")}};
    QTest::newRow("UTF-8 value in text") << utf8 << QStringLiteral("Schlüssel: grüße-🔑!")
                                         << QStringLiteral("Schlüssel: [secret:GRUSS]!");
    QTest::newRow("near miss") << utf8 << QStringLiteral("grüsse-🔑") << QStringLiteral("grüsse-🔑");
    QTest::newRow("ASCII value around non-ASCII text")
        << Secrets{{QStringLiteral("TOKEN"), "abc-123-xyz"}} << QStringLiteral("→abc-123-xyz←")
        << QStringLiteral("→[secret:TOKEN]←");
    QTest::newRow("empty") << utf8 << QString() << QString();
}

void tst_SecretRedactor::redactString()
{
    QFETCH(Secrets, secrets);
    QFETCH(QString, input);
    QFETCH(QString, expected);
    const SecretRedactor redactor(secrets);
    QCOMPARE(redactor.redact(input), expected);
}

void tst_SecretRedactor::untouchedOutputIsNotCopied()
{
    const SecretRedactor redactor({{QStringLiteral("TOKEN"), "abc-123-xyz"}});
    const QByteArray output("ordinary output\n");
    QCOMPARE(redactor.redact(output).constData(), output.constData());

    // A lone surrogate would not survive a UTF-8 round trip: untouched text is returned as is.
    const QString text = QStringLiteral("x") + QChar(0xd800) + QStringLiteral("y");
    QCOMPARE(redactor.redact(text), text);
}

void tst_SecretRedactor::shortValuesAreIgnored()
{
    const SecretRedactor shortOnly({{QStringLiteral("A"), "abc"}, {QStringLiteral("B"), "x"}});
    QVERIFY(shortOnly.isEmpty());
    QVERIFY(SecretRedactor().isEmpty());
    QVERIFY(!SecretRedactor({{QStringLiteral("A"), "abcd"}}).isEmpty());
}

void tst_SecretRedactor::eachLineOfAMultiLineValue()
{
    // A PEM key printed whole, line by line with other text between, or one line alone.
    const QByteArray key = "-----BEGIN PRIVATE KEY-----\r\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
                           "bm90IGEgcmVhbCBrZXkgYXQgYWxs\nab\n-----END PRIVATE KEY-----";
    const SecretRedactor redactor({{QStringLiteral("PEM_KEY"), key}});
    QCOMPARE(redactor.redact("<" + key + ">"), QByteArray("<[secret:PEM_KEY]>"));
    QCOMPARE(redactor.redact(QByteArray("line 2: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n")),
             QByteArray("line 2: [secret:PEM_KEY]\n"));
    QCOMPARE(redactor.redact(QByteArray("bm90IGEgcmVhbCBrZXkgYXQgYWxs")),
             QByteArray("[secret:PEM_KEY]"));
    // A line too short to redact alone ("ab") is left, as a short value would be.
    QCOMPARE(redactor.redact(QByteArray("ab")), QByteArray("ab"));
    // The longest value first still: the whole key is one marker, not one per line.
    QCOMPARE(redactor.longestValueLength(), key.size());
}

void tst_SecretRedactor::largeOutputWithManySecrets()
{
    // 1 MiB of printable noise with 40 secrets of 12-50 bytes, each planted 10 times.
    auto* random = QRandomGenerator::global();
    const auto noise = [&](qsizetype size) {
        QByteArray bytes(size, Qt::Uninitialized);
        for (char& c : bytes)
            c = static_cast<char>(' ' + random->bounded(95));
        return bytes;
    };
    Secrets secrets;
    for (int i = 0; i < 40; ++i)
        secrets.append({QStringLiteral("SECRET_%1").arg(i), QByteArray("\x01") + noise(11 + i)});
    QByteArray output = noise(qsizetype(1024) * 1024);
    // One plant per slot, so that no plant overwrites part of another.
    const qsizetype slot = output.size() / (10 * secrets.size());
    qsizetype slotStart = 0;
    for (int round = 0; round < 10; ++round) {
        for (const auto& [name, value] : secrets) {
            const qsizetype at =
                slotStart + random->bounded(static_cast<qint64>(slot - value.size()));
            output.replace(at, value.size(), value);
            slotStart += slot;
        }
    }

    const SecretRedactor redactor(secrets);
    QElapsedTimer timer;
    timer.start();
    const QByteArray redacted = redactor.redact(output);
    const qint64 elapsedMs = timer.elapsed();
    qInfo("redacted 1 MiB with 40 secrets in %lld ms", elapsedMs);

    // The planted values all start with \x01, which the noise never holds: none may remain.
    QVERIFY(!redacted.contains('\x01'));
    QVERIFY(redacted.contains("[secret:SECRET_"));
    // Generous: the measured time is a few milliseconds; this catches a quadratic regression.
    QVERIFY2(elapsedMs < 2000, qPrintable(QStringLiteral("%1 ms").arg(elapsedMs)));
}

QTEST_GUILESS_MAIN(tst_SecretRedactor)
#include "tst_SecretRedactor.moc"
