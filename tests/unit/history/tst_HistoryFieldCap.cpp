// HistoryFieldCap: how much of a run's code and output the history keeps.
#include "history/HistoryFieldCap.h"

#include <QTest>

using csm::HistoryFieldCap;

class tst_HistoryFieldCap final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shortTextIsKeptWhole()
    {
        QCOMPARE(HistoryFieldCap::apply(QByteArrayView("print(1)"), 8), QStringLiteral("print(1)"));
        QCOMPARE(HistoryFieldCap::apply(QStringLiteral("print(1)"), 8), QStringLiteral("print(1)"));
        QCOMPARE(HistoryFieldCap::apply(QByteArrayView(), 8), QString());
        // No limit.
        const QByteArray big(1 << 20, 'x');
        QCOMPARE(HistoryFieldCap::apply(QByteArrayView(big), 0).size(), big.size());
    }

    void longTextIsCutWithAMarker()
    {
        const QByteArray text = QByteArray(1000, 'a') + QByteArray(3000, 'b');
        const QString kept = HistoryFieldCap::apply(QByteArrayView(text), 1000);
        QCOMPARE(kept,
                 QString(1000, u'a') + QStringLiteral("\n[... 2.9 KiB not kept in the history]"));
        QCOMPARE(HistoryFieldCap::apply(QString::fromLatin1(text), 1000), kept);
    }

    void markerSaysHowMuch_data()
    {
        QTest::addColumn<qint64>("dropped");
        QTest::addColumn<QString>("marker");
        QTest::newRow("bytes") << qint64(1)
                               << QStringLiteral("\n[... 1 bytes not kept in the history]");
        QTest::newRow("KiB") << qint64(2048)
                             << QStringLiteral("\n[... 2.0 KiB not kept in the history]");
        QTest::newRow("16 MiB less 256 KiB")
            << qint64((16 << 20) - (256 << 10))
            << QStringLiteral("\n[... 15.8 MiB not kept in the history]");
        QTest::newRow("GiB") << (qint64(3) << 30)
                             << QStringLiteral("\n[... 3.0 GiB not kept in the history]");
    }

    void markerSaysHowMuch()
    {
        QFETCH(qint64, dropped);
        QFETCH(QString, marker);
        QCOMPARE(HistoryFieldCap::marker(dropped), marker);
    }

    // The cut never splits a character, whatever its length in UTF-8.
    void cutsOnACharacterBoundary_data()
    {
        QTest::addColumn<QString>("character");
        QTest::newRow("2 bytes") << QStringLiteral("é");
        QTest::newRow("3 bytes") << QStringLiteral("€");
        QTest::newRow("4 bytes") << QStringLiteral("\U0001F600");
    }

    void cutsOnACharacterBoundary()
    {
        QFETCH(QString, character);
        const QString text = character.repeated(100);
        const qsizetype width = character.toUtf8().size();
        for (qint64 cap = 1; cap <= 40; ++cap) {
            const QString kept = HistoryFieldCap::apply(text, cap);
            const QString head = kept.section(u'\n', 0, 0);
            QCOMPARE(head, character.repeated(cap / width));
            QVERIFY(head.toUtf8().size() <= cap);
            QVERIFY(!head.contains(QChar::ReplacementCharacter));
            QVERIFY(kept.endsWith(QLatin1String(" not kept in the history]")));
            const qint64 dropped = text.toUtf8().size() - head.toUtf8().size();
            QVERIFY(kept.endsWith(HistoryFieldCap::marker(dropped)));
        }
    }

    void bytesThatAreNotUtf8AreCutWhereTheCapSays()
    {
        // Continuation bytes only: no character start to go back to.
        const QByteArray garbage(100, '\x80');
        const QString kept = HistoryFieldCap::apply(QByteArrayView(garbage), 10);
        QCOMPARE(kept, QString(10, QChar::ReplacementCharacter) + HistoryFieldCap::marker(90));
    }
};

QTEST_GUILESS_MAIN(tst_HistoryFieldCap)
#include "tst_HistoryFieldCap.moc"
