#include "sandbox/CarrierFrameReader.h"

#include <QTest>

using namespace csm;

// The egress carrier's frames as the server reads them: whole frames from bytes in any cut, and
// a stop at the first frame the protocol does not allow (the carrier runs beside the program).
class TestCarrierFrameReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void framesComeOutWholeHoweverTheBytesAreCut()
    {
        const QByteArray stream =
            CarrierFrameReader::encode(CSM_CARRIER_HELLO, 0) +
            CarrierFrameReader::encode(CSM_CARRIER_OPEN, 1) +
            CarrierFrameReader::encode(CSM_CARRIER_DATA, 1, "GET / HTTP/1.1") +
            CarrierFrameReader::encodeAck(1, 70000) +
            CarrierFrameReader::encode(CSM_CARRIER_END, 1);
        for (int cut = 1; cut <= stream.size(); ++cut) {
            CarrierFrameReader reader;
            QList<CarrierFrame> frames;
            for (qsizetype at = 0; at < stream.size(); at += cut) {
                reader.append(stream.mid(at, cut));
                while (auto frame = reader.next())
                    frames.append(*frame);
            }
            QVERIFY(!reader.isBroken());
            QCOMPARE(frames.size(), 5);
            QCOMPARE(frames.at(0).type, char(CSM_CARRIER_HELLO));
            QCOMPARE(frames.at(1).id, 1u);
            QCOMPARE(frames.at(2).payload, QByteArray("GET / HTTP/1.1"));
            QCOMPARE(CarrierFrameReader::ackCount(frames.at(3).payload), 70000u);
            QCOMPARE(frames.at(4).type, char(CSM_CARRIER_END));
        }
    }

    void framesTheProtocolDoesNotAllowStopTheReader_data()
    {
        QTest::addColumn<QByteArray>("frame");
        QTest::addColumn<QString>("why");
        auto header = [](char type, quint32 length) {
            QByteArray bytes = CarrierFrameReader::encode(type, 1);
            bytes[5] = char(length >> 24);
            bytes[6] = char(length >> 16);
            bytes[7] = char(length >> 8);
            bytes[8] = char(length);
            return bytes;
        };
        QTest::newRow("unknown type") << header('Z', 0) << QStringLiteral("unknown frame type");
        QTest::newRow("empty data") << header(CSM_CARRIER_DATA, 0) << QStringLiteral("'D'");
        // Refused from the header alone: the reader never waits for (or buffers) 4 GiB.
        QTest::newRow("data over the largest")
            << header(CSM_CARRIER_DATA, CSM_CARRIER_MAX_DATA + 1) << QStringLiteral("'D'");
        QTest::newRow("huge data")
            << header(CSM_CARRIER_DATA, 0xffffffffu) << QStringLiteral("'D'");
        QTest::newRow("short ack") << header(CSM_CARRIER_ACK, 3) << QStringLiteral("'A'");
        QTest::newRow("open with a payload")
            << header(CSM_CARRIER_OPEN, 1) << QStringLiteral("'O'");
    }

    void framesTheProtocolDoesNotAllowStopTheReader()
    {
        QFETCH(QByteArray, frame);
        QFETCH(QString, why);
        CarrierFrameReader reader;
        reader.append(CarrierFrameReader::encode(CSM_CARRIER_HELLO, 0) + frame +
                      CarrierFrameReader::encode(CSM_CARRIER_OPEN, 2));
        QVERIFY(reader.next().has_value()); // the hello before it still counts
        QVERIFY(!reader.next().has_value());
        QVERIFY(reader.isBroken());
        QVERIFY2(reader.error().contains(why), qPrintable(reader.error()));
        // Nothing after it either, whatever comes.
        reader.append(CarrierFrameReader::encode(CSM_CARRIER_OPEN, 3));
        QVERIFY(!reader.next().has_value());
    }
};

QTEST_GUILESS_MAIN(TestCarrierFrameReader)
#include "tst_CarrierFrameReader.moc"
