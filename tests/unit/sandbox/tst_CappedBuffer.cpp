#include "sandbox/CappedBuffer.h"

#include <QTest>

using csm::CappedBuffer;

class tst_CappedBuffer final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void startsEmpty();
    void append_data();
    void append();
    void keepsBinaryBytes();
    void largeInputIsNotStored();
};

void tst_CappedBuffer::startsEmpty()
{
    const CappedBuffer buffer(16);
    QVERIFY(buffer.data().isEmpty());
    QVERIFY(!buffer.truncated());
    QVERIFY(!buffer.isFull());
    QCOMPARE(buffer.droppedBytes(), qint64(0));
}

void tst_CappedBuffer::append_data()
{
    QTest::addColumn<qint64>("cap");
    QTest::addColumn<QList<QByteArray>>("chunks");
    QTest::addColumn<QByteArray>("expectedData");
    QTest::addColumn<qint64>("expectedDropped");

    using Chunks = QList<QByteArray>;
    QTest::newRow("under the cap")
        << qint64(10) << Chunks{"abc", "de"} << QByteArray("abcde") << qint64(0);
    QTest::newRow("exactly the cap")
        << qint64(5) << Chunks{"abc", "de"} << QByteArray("abcde") << qint64(0);
    QTest::newRow("over in one chunk")
        << qint64(4) << Chunks{"abcdefgh"} << QByteArray("abcd") << qint64(4);
    QTest::newRow("chunk split at the cap")
        << qint64(5) << Chunks{"abc", "defg", "hi"} << QByteArray("abcde") << qint64(4);
    QTest::newRow("appends after full are all dropped")
        << qint64(3) << Chunks{"abc", "d", "efghij"} << QByteArray("abc") << qint64(7);
    QTest::newRow("empty chunks") << qint64(3) << Chunks{"", "ab", "", ""} << QByteArray("ab")
                                  << qint64(0);
    QTest::newRow("cap 0 keeps nothing")
        << qint64(0) << Chunks{"abc", "de"} << QByteArray() << qint64(5);
    QTest::newRow("cap 0 with empty input") << qint64(0) << Chunks{""} << QByteArray() << qint64(0);
    QTest::newRow("negative cap behaves as 0")
        << qint64(-10) << Chunks{"abc"} << QByteArray() << qint64(3);
    QTest::newRow("cap 1") << qint64(1) << Chunks{"xyz"} << QByteArray("x") << qint64(2);
}

void tst_CappedBuffer::append()
{
    QFETCH(qint64, cap);
    QFETCH(QList<QByteArray>, chunks);
    QFETCH(QByteArray, expectedData);
    QFETCH(qint64, expectedDropped);

    CappedBuffer buffer(cap);
    qint64 total = 0;
    for (const QByteArray& chunk : chunks) {
        buffer.append(chunk);
        total += chunk.size();
        // Never more than the cap, at any point.
        QVERIFY(buffer.data().size() <= std::max<qint64>(cap, 0));
    }
    QCOMPARE(buffer.data(), expectedData);
    QCOMPARE(buffer.droppedBytes(), expectedDropped);
    QCOMPARE(buffer.truncated(), expectedDropped > 0);
    QCOMPARE(buffer.isFull(), expectedData.size() >= std::max<qint64>(cap, 0));
    // Every byte is either kept or counted as dropped.
    QCOMPARE(buffer.data().size() + buffer.droppedBytes(), total);
}

void tst_CappedBuffer::keepsBinaryBytes()
{
    CappedBuffer buffer(6);
    const QByteArray bytes("\x00\xff\n\x00\xe2\x82\xac", 7);
    buffer.append(bytes);
    QCOMPARE(buffer.data(), bytes.left(6));
    QCOMPARE(buffer.droppedBytes(), qint64(1));
    QVERIFY(buffer.truncated());
}

void tst_CappedBuffer::largeInputIsNotStored()
{
    constexpr qint64 cap = 1024;
    CappedBuffer buffer(cap);
    const QByteArray chunk(64 * 1024, 'x');
    for (int i = 0; i < 100; ++i)
        buffer.append(chunk);
    QCOMPARE(buffer.data().size(), cap);
    QCOMPARE(buffer.droppedBytes(), 100 * chunk.size() - cap);
    // The kept bytes stay within a small margin of the cap, not the 6.4 MB that went in.
    QVERIFY(buffer.data().capacity() < 16 * cap);
}

QTEST_GUILESS_MAIN(tst_CappedBuffer)
#include "tst_CappedBuffer.moc"
