#include "mcp/ProtocolVersion.h"

#include <QTest>

using csm::ProtocolVersion;

class tst_ProtocolVersion final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void latestIsNewest();
    void supportedIsNewestFirst();
    void isSupported_data();
    void isSupported();
    void negotiate_data();
    void negotiate();
};

void tst_ProtocolVersion::latestIsNewest()
{
    QCOMPARE(ProtocolVersion::latest(), QStringLiteral("2025-11-25"));
    QCOMPARE(ProtocolVersion::latest(), ProtocolVersion::supported().constFirst());
}

void tst_ProtocolVersion::supportedIsNewestFirst()
{
    const QStringList supported = ProtocolVersion::supported();
    QCOMPARE(supported, (QStringList{QStringLiteral("2025-11-25"), QStringLiteral("2025-06-18"),
                                     QStringLiteral("2025-03-26"), QStringLiteral("2024-11-05")}));
    // Revisions are dates: newest first means strictly descending.
    for (qsizetype i = 1; i < supported.size(); ++i)
        QVERIFY2(supported.at(i - 1) > supported.at(i), qPrintable(supported.at(i)));
}

void tst_ProtocolVersion::isSupported_data()
{
    QTest::addColumn<QString>("version");
    QTest::addColumn<bool>("supported");

    QTest::newRow("2025-11-25") << QStringLiteral("2025-11-25") << true;
    QTest::newRow("2025-06-18") << QStringLiteral("2025-06-18") << true;
    QTest::newRow("2025-03-26") << QStringLiteral("2025-03-26") << true;
    QTest::newRow("2024-11-05") << QStringLiteral("2024-11-05") << true;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("unknown future") << QStringLiteral("2099-01-01") << false;
    QTest::newRow("unknown past") << QStringLiteral("2024-10-07") << false;
    QTest::newRow("draft") << QStringLiteral("DRAFT-2026-v1") << false;
    QTest::newRow("surrounding spaces") << QStringLiteral(" 2025-06-18 ") << false;
    QTest::newRow("prefix") << QStringLiteral("2025-06") << false;
}

void tst_ProtocolVersion::isSupported()
{
    QFETCH(QString, version);
    QFETCH(bool, supported);
    QCOMPARE(ProtocolVersion::isSupported(version), supported);
}

void tst_ProtocolVersion::negotiate_data()
{
    QTest::addColumn<QString>("requested");
    QTest::addColumn<QString>("expected");

    const QString latest = QStringLiteral("2025-11-25");
    QTest::newRow("latest echoed") << latest << latest;
    QTest::newRow("2025-06-18 echoed")
        << QStringLiteral("2025-06-18") << QStringLiteral("2025-06-18");
    QTest::newRow("2025-03-26 echoed")
        << QStringLiteral("2025-03-26") << QStringLiteral("2025-03-26");
    QTest::newRow("2024-11-05 echoed")
        << QStringLiteral("2024-11-05") << QStringLiteral("2024-11-05");
    QTest::newRow("missing") << QString() << latest;
    QTest::newRow("unknown future") << QStringLiteral("2099-01-01") << latest;
    QTest::newRow("unknown past") << QStringLiteral("2024-10-07") << latest;
    QTest::newRow("garbage") << QStringLiteral("not a version") << latest;
}

void tst_ProtocolVersion::negotiate()
{
    QFETCH(QString, requested);
    QFETCH(QString, expected);
    QCOMPARE(ProtocolVersion::negotiate(requested), expected);
    // Whatever was asked for, the answer is always a version we speak.
    QVERIFY(ProtocolVersion::isSupported(ProtocolVersion::negotiate(requested)));
}

QTEST_GUILESS_MAIN(tst_ProtocolVersion)
#include "tst_ProtocolVersion.moc"
