// ViewerSafeFile: which of a run's files the Files tab opens without asking. The desktop picks
// the application by the name, so the sniffed type and the name must both be a plain viewer's.
#include "ui/widgets/ViewerSafeFile.h"

#include <QTest>

using csm::RunFileRecord;
using csm::ViewerSafeFile;

class tst_ViewerSafeFile final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void opensWithoutAsking_data()
    {
        QTest::addColumn<QString>("storedName");
        QTest::addColumn<QString>("mimeType");
        QTest::addColumn<bool>("safe");
        QTest::newRow("a chart") << QStringLiteral("chart.png") << QStringLiteral("image/png")
                                 << true;
        QTest::newRow("a photo, upper case")
            << QStringLiteral("P.JPG") << QStringLiteral("image/jpeg") << true;
        QTest::newRow("a table") << QStringLiteral("t.csv") << QStringLiteral("text/csv") << true;
        QTest::newRow("a log") << QStringLiteral("run.log") << QStringLiteral("text/plain") << true;
        QTest::newRow("json") << QStringLiteral("r.json") << QStringLiteral("application/json")
                              << true;
        // Text, but the desktop would run it by its name.
        QTest::newRow("a launcher")
            << QStringLiteral("evil.desktop") << QStringLiteral("text/plain") << false;
        QTest::newRow("a script") << QStringLiteral("run.sh") << QStringLiteral("text/plain")
                                  << false;
        QTest::newRow("a page") << QStringLiteral("report.html") << QStringLiteral("text/html")
                                << false;
        QTest::newRow("an SVG (scripts)")
            << QStringLiteral("c.svg") << QStringLiteral("image/svg+xml") << false;
        // Named as an image, but not one.
        QTest::newRow("a png that is not")
            << QStringLiteral("x.png") << QStringLiteral("application/octet-stream") << false;
        QTest::newRow("no ending")
            << QStringLiteral("README") << QStringLiteral("text/plain") << false;
        // A name that shows as "exe.png" but ends in .exe.
        QTest::newRow("a reversed name")
            << QStringLiteral("a-\u202Egnp.exe") << QStringLiteral("image/png") << false;
    }

    void opensWithoutAsking()
    {
        QFETCH(QString, storedName);
        QFETCH(QString, mimeType);
        QFETCH(bool, safe);
        RunFileRecord file;
        file.path = storedName;
        file.storedPath = QStringLiteral("/data/run-files/k/out/") + storedName;
        file.mimeType = mimeType;
        QCOMPARE(ViewerSafeFile::opensWithoutAsking(file), safe);
    }
};

QTEST_GUILESS_MAIN(tst_ViewerSafeFile)
#include "tst_ViewerSafeFile.moc"
