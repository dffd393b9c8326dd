// The `files` argument of run_*_code: what is accepted, and a clear refusal for everything else.
#include "tools/InputFileList.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace csm;

namespace {
QJsonObject entry(const QString& path, const QString& content, const QString& encoding = {})
{
    QJsonObject file{{QStringLiteral("path"), path}, {QStringLiteral("content"), content}};
    if (!encoding.isEmpty())
        file.insert(QStringLiteral("encoding"), encoding);
    return file;
}
} // namespace

class tst_InputFileList final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void acceptsTextAndBase64()
    {
        const auto files = InputFileList::parse(
            QJsonArray{entry(QStringLiteral("a.csv"), QStringLiteral("x,y\n")),
                       entry(QStringLiteral("d/b.bin"), QStringLiteral("AAEC/w=="),
                             QStringLiteral("base64"))},
            {});
        QVERIFY2(files, qPrintable(files.error()));
        QCOMPARE(files->size(), 2);
        QCOMPARE(files->at(0).content, QByteArray("x,y\n"));
        QCOMPARE(files->at(1).path, QStringLiteral("d/b.bin"));
        QCOMPARE(files->at(1).content, QByteArray("\x00\x01\x02\xff", 4));
    }

    void noFilesIsFine()
    {
        QVERIFY(InputFileList::parse(QJsonValue(QJsonValue::Undefined), {})->isEmpty());
        QVERIFY(InputFileList::parse(QJsonValue(QJsonValue::Null), {})->isEmpty());
    }

    void refusals_data()
    {
        QTest::addColumn<QJsonValue>("files");
        QTest::addColumn<QString>("says");
        const QString x = QStringLiteral("x");
        QTest::newRow("not an array") << QJsonValue(x) << QStringLiteral("must be an array");
        QTest::newRow("not an object") << QJsonValue(QJsonArray{1}) << QStringLiteral("files[0]");
        QTest::newRow("no path") << QJsonValue(
                                        QJsonArray{QJsonObject{{QStringLiteral("content"), x}}})
                                 << QStringLiteral("\"path\"");
        QTest::newRow("no content")
            << QJsonValue(QJsonArray{QJsonObject{{QStringLiteral("path"), x}}})
            << QStringLiteral("\"content\"");
        QTest::newRow("absolute") << QJsonValue(QJsonArray{entry(QStringLiteral("/etc/x"), x)})
                                  << QStringLiteral("absolute");
        QTest::newRow("dot dot") << QJsonValue(QJsonArray{entry(QStringLiteral("a/../../x"), x)})
                                 << QStringLiteral("\"..\"");
        QTest::newRow("empty part")
            << QJsonValue(QJsonArray{entry(QStringLiteral("a//x"), x)}) << QStringLiteral("empty");
        QTest::newRow("empty path")
            << QJsonValue(QJsonArray{entry(QString(), x)}) << QStringLiteral("empty");
        QTest::newRow("broken base64")
            << QJsonValue(QJsonArray{entry(x, QStringLiteral("@@@"), QStringLiteral("base64"))})
            << QStringLiteral("not valid base64");
        QTest::newRow("unknown encoding")
            << QJsonValue(QJsonArray{entry(x, x, QStringLiteral("latin1"))})
            << QStringLiteral("use \"utf-8\" or \"base64\"");
        QTest::newRow("twice") << QJsonValue(QJsonArray{entry(x, x), entry(x, x)})
                               << QStringLiteral("again");
        QTest::newRow("file then folder") << QJsonValue(QJsonArray{entry(QStringLiteral("a"), x),
                                                                   entry(QStringLiteral("a/b"), x)})
                                          << QStringLiteral("which is a file");
        QTest::newRow("folder then file") << QJsonValue(QJsonArray{entry(QStringLiteral("a/b"), x),
                                                                   entry(QStringLiteral("a"), x)})
                                          << QStringLiteral("folder of another");
    }

    void refusals()
    {
        QFETCH(QJsonValue, files);
        QFETCH(QString, says);
        const auto parsed = InputFileList::parse(files, {});
        QVERIFY(!parsed);
        QVERIFY2(parsed.error().contains(says), qPrintable(parsed.error()));
        QVERIFY(parsed.error().startsWith(QLatin1String("Invalid arguments")));
    }

    void capsCountAndTotalSize()
    {
        const InputFileList::Limits limits{2, 10};
        const QString x = QStringLiteral("x");
        const auto tooMany = InputFileList::parse(QJsonArray{entry(QStringLiteral("a"), x),
                                                             entry(QStringLiteral("b"), x),
                                                             entry(QStringLiteral("c"), x)},
                                                  limits);
        QVERIFY(!tooMany);
        QVERIFY2(tooMany.error().contains(QStringLiteral("at most 2")),
                 qPrintable(tooMany.error()));
        const auto tooLarge =
            InputFileList::parse(QJsonArray{entry(QStringLiteral("a"), QString(6, u'x')),
                                            entry(QStringLiteral("b"), QString(6, u'x'))},
                                 limits);
        QVERIFY(!tooLarge);
        QVERIFY2(tooLarge.error().contains(QStringLiteral("add up to more than")),
                 qPrintable(tooLarge.error()));
    }
};

QTEST_GUILESS_MAIN(tst_InputFileList)
#include "tst_InputFileList.moc"
