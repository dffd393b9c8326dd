#include "core/ByteSize.h"

#include <QTest>

using namespace csm;

class tst_ByteSize final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes"); // -1: invalid
        QTest::newRow("bytes") << QStringLiteral("1048576") << 1048576LL;
        QTest::newRow("k") << QStringLiteral("64k") << 65536LL;
        QTest::newRow("m") << QStringLiteral("512m") << 536870912LL;
        QTest::newRow("M with b") << QStringLiteral("512MB") << 536870912LL;
        QTest::newRow("g") << QStringLiteral("2g") << 2147483648LL;
        QTest::newRow("spaces") << QStringLiteral(" 1g ") << 1073741824LL;
        QTest::newRow("zero") << QStringLiteral("0") << -1LL;
        QTest::newRow("negative") << QStringLiteral("-5m") << -1LL;
        QTest::newRow("words") << QStringLiteral("lots") << -1LL;
        QTest::newRow("empty") << QString() << -1LL;
        QTest::newRow("unit only") << QStringLiteral("m") << -1LL;
        QTest::newRow("fraction") << QStringLiteral("1.5g") << -1LL;
        QTest::newRow("terabytes") << QStringLiteral("1t") << -1LL;
        QTest::newRow("overflow") << QStringLiteral("99999999999999g") << -1LL;
    }

    void parse()
    {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        const auto parsed = ByteSize::parse(text);
        QCOMPARE(parsed.value_or(-1), bytes);
    }

    void format_data()
    {
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("g") << 1073741824LL << QStringLiteral("1g");
        QTest::newRow("m") << 536870912LL << QStringLiteral("512m");
        QTest::newRow("k") << 1024LL << QStringLiteral("1k");
        QTest::newRow("not a whole unit") << 1500LL << QStringLiteral("1500");
    }

    void format()
    {
        QFETCH(qint64, bytes);
        QFETCH(QString, text);
        QCOMPARE(ByteSize::format(bytes), text);
        QCOMPARE(ByteSize::parse(text).value_or(-1), bytes);
    }

    void forPeople_data()
    {
        QTest::addColumn<qint64>("bytes");
        QTest::addColumn<QString>("text");
        QTest::newRow("bytes") << 980LL << QStringLiteral("980 B");
        QTest::newRow("none") << 0LL << QStringLiteral("0 B");
        QTest::newRow("a fraction") << 48230LL << QStringLiteral("47.1 KiB");
        QTest::newRow("whole") << 536870912LL << QStringLiteral("512 MiB");
        QTest::newRow("over a hundred") << 150LL * 1024 * 1024 + 5000 << QStringLiteral("150 MiB");
        QTest::newRow("just under the next unit") << 1023LL << QStringLiteral("1023 B");
        QTest::newRow("gigabytes") << 3LL * 1024 * 1024 * 1024 / 2 << QStringLiteral("1.5 GiB");
    }

    void forPeople()
    {
        QFETCH(qint64, bytes);
        QFETCH(QString, text);
        QCOMPARE(ByteSize::forPeople(bytes), text);
    }
};

QTEST_GUILESS_MAIN(tst_ByteSize)
#include "tst_ByteSize.moc"
