// Expected<T>: the one convention for what can fail (core/Expected.h).
#include "core/Expected.h"

#include <QTest>

#include <memory>
#include <type_traits>

using namespace csm;

namespace {
Expected<int> parsePort(const QString& text)
{
    bool ok = false;
    const int port = text.toInt(&ok);
    if (!ok || port < 1 || port > 65535)
        return Unexpected(QStringLiteral("not a port: %1").arg(text));
    return port;
}

Expected<void> requireNonEmpty(const QString& text)
{
    if (text.isEmpty())
        return Unexpected(QStringLiteral("empty"));
    return {};
}
} // namespace

class tst_Expected final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void carriesAValue()
    {
        const Expected<int> port = parsePort(QStringLiteral("8765"));
        QVERIFY(port);
        QVERIFY(port.hasValue());
        QCOMPARE(*port, 8765);
        QCOMPARE(port.valueOr(1), 8765);
    }

    void carriesTheReason()
    {
        const Expected<int> port = parsePort(QStringLiteral("http"));
        QVERIFY(!port);
        QCOMPARE(port.error(), QStringLiteral("not a port: http"));
        QCOMPARE(port.valueOr(1), 1);
    }

    void aStringValueIsNotAnError()
    {
        const Expected<QString> value = QStringLiteral("token");
        QVERIFY(value);
        QCOMPARE(*value, QStringLiteral("token"));
        const Expected<QString> failed = Unexpected(QStringLiteral("no token"));
        QVERIFY(!failed);
        QCOMPARE(failed.error(), QStringLiteral("no token"));
    }

    void movesOnlyValues()
    {
        Expected<std::unique_ptr<int>> owned = std::make_unique<int>(7);
        QVERIFY(owned);
        std::unique_ptr<int> taken = *std::move(owned);
        QCOMPARE(*taken, 7);
    }

    // A temporary's value is moved out, so that a loop over `*read()` loops over a value that
    // lives as long as the loop, not over one inside a temporary already destroyed.
    void aTemporarysValueOutlivesIt()
    {
        static_assert(
            std::is_same_v<decltype(*std::declval<Expected<QStringList>>()), QStringList>);
        static_assert(
            std::is_same_v<decltype(std::declval<Expected<QStringList>>().value()), QStringList>);
        static_assert(
            std::is_same_v<decltype(*std::declval<Expected<QStringList>&>()), QStringList&>);
        const auto read = [] {
            return Expected<QStringList>(QStringList{QStringLiteral("a"), QStringLiteral("b")});
        };
        QStringList seen;
        for (const QString& item : *read())
            seen << item;
        QCOMPARE(seen, (QStringList{QStringLiteral("a"), QStringLiteral("b")}));
    }

    void voidCarriesOnlyTheReason()
    {
        QVERIFY(requireNonEmpty(QStringLiteral("x")));
        const Expected<void> failed = requireNonEmpty({});
        QVERIFY(!failed);
        QCOMPARE(failed.error(), QStringLiteral("empty"));
    }

    void aValueHasAnEmptyReason()
    {
        // So that a test can print the reason without checking first.
        QVERIFY(parsePort(QStringLiteral("80")).error().isEmpty());
        QVERIFY(requireNonEmpty(QStringLiteral("x")).error().isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_Expected)
#include "tst_Expected.moc"
