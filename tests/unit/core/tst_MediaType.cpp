// A file's type from its content: an image is what its bytes say, whatever its name.
#include "core/MediaType.h"

#include <QTest>

using namespace csm;

class tst_MediaType final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sniff_data()
    {
        QTest::addColumn<QByteArray>("head");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("type");
        QTest::newRow("png") << QByteArray("\x89PNG\r\n\x1a\n....") << "x.bin"
                             << "image/png";
        QTest::newRow("jpeg") << QByteArray("\xff\xd8\xff\xe0") << "x"
                              << "image/jpeg";
        QTest::newRow("gif") << QByteArray("GIF89a..") << "x"
                             << "image/gif";
        QTest::newRow("webp") << QByteArray("RIFF\0\0\0\0WEBPVP8 ", 16) << "x"
                              << "image/webp";
        QTest::newRow("text named png") << QByteArray("not a png") << "chart.png"
                                        << "text/plain";
        QTest::newRow("svg") << QByteArray("<?xml version='1.0'?><svg xmlns=''>") << "x"
                             << "image/svg+xml";
        QTest::newRow("csv") << QByteArray("a,b\n1,2\n") << "t.CSV"
                             << "text/csv";
        QTest::newRow("json") << QByteArray("{}") << "t.json"
                              << "application/json";
        QTest::newRow("binary") << QByteArray("\x00\x01\x02", 3) << "t.csv"
                                << "application/octet-stream";
        QTest::newRow("invalid utf-8") << QByteArray("ab\xff\xfe") << "t.txt"
                                       << "application/octet-stream";
        QTest::newRow("pdf") << QByteArray("%PDF-1.7") << "x"
                             << "application/pdf";
    }

    void sniff()
    {
        QFETCH(QByteArray, head);
        QFETCH(QString, name);
        QFETCH(QString, type);
        QCOMPARE(MediaType::sniff(head, name), type);
    }

    void aCharacterCutAtTheWindowIsStillText()
    {
        QByteArray head(MediaType::kSniffBytes - 1, 'a');
        head.append("\xc3"); // the first byte of "é", cut by the window
        QCOMPARE(MediaType::sniff(head, QStringLiteral("t.txt")), QStringLiteral("text/plain"));
    }
};

QTEST_GUILESS_MAIN(tst_MediaType)
#include "tst_MediaType.moc"
