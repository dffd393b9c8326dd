// Files in and out against a real engine (CSM_TEST_ENGINE), cold and pooled: a CSV in through
// `files`, its summary and a chart out, read back through resources/read; and what a hostile
// program can leave in its output folder (thousands of files, a file over the cap, links, FIFOs,
// names with newlines or invalid UTF-8, an image that is not one), each a clear result, with the
// server's memory bounded and nothing written outside the data folder.
#include "CallResult.h"
#include "McpStdioClient.h"
#include "TestEngine.h"

#include <QCryptographicHash>
#include <QDeadlineTimer>
#include <QFile>
#include <QJsonArray>
#include <QTest>

#include <memory>

using namespace callresult;

namespace {
QJsonArray filesOf(const QJsonObject& result)
{
    return structured(result).value(QLatin1String("files")).toArray();
}

QJsonObject fileNamed(const QJsonObject& result, const QString& path)
{
    for (const QJsonValue& file : filesOf(result)) {
        if (file.toObject().value(QLatin1String("path")).toString() == path)
            return file.toObject();
    }
    return {};
}

qint64 residentKiB(qint64 pid)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : status.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}
} // namespace

class TestFiles final : public QObject
{
    Q_OBJECT

private:
    // A server on the engine under test; pooled: with a warm container ready for the call.
    std::unique_ptr<McpStdioClient> startServer(bool pooled)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
        auto client = std::make_unique<McpStdioClient>();
        const QStringList arguments{QStringLiteral("--verbose"), QStringLiteral("--pool"),
                                    pooled ? QStringLiteral("1") : QStringLiteral("0")};
        if (!client->start(arguments, env) || client->initialize().isEmpty())
            return nullptr;
        if (pooled && !client->waitForPooledReady(1))
            return nullptr;
        return client;
    }

    static QJsonObject run(McpStdioClient& server, const QString& program,
                           const QJsonArray& files = {})
    {
        QJsonObject arguments = code(program);
        if (!files.isEmpty())
            arguments.insert(QStringLiteral("files"), files);
        return server.callTool(QStringLiteral("run_python_code"), arguments, 120'000);
    }

    static void addModes()
    {
        QTest::addColumn<bool>("pooled");
        QTest::newRow("cold") << false;
        QTest::newRow("pooled") << true;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")),
                 "the python sandbox image must be built (containers/build-images)");
    }

    void csvInSummaryAndChartOut_data() { addModes(); }
    void csvInSummaryAndChartOut()
    {
        QFETCH(bool, pooled);
        auto server = startServer(pooled);
        QVERIFY(server);
        const QJsonArray files{
            QJsonObject{{QStringLiteral("path"), QStringLiteral("data/sales.csv")},
                        {QStringLiteral("content"),
                         QStringLiteral("region,amount\nnorth,10\nsouth,20\nnorth,5\n")}}};
        const QJsonObject result =
            run(*server,
                QStringLiteral("import pandas as pd, matplotlib\n"
                               "matplotlib.use('Agg')\n"
                               "import matplotlib.pyplot as plt\n"
                               "df = pd.read_csv('data/sales.csv')\n"
                               "by = df.groupby('region')['amount'].sum()\n"
                               "print('north', by['north'], 'south', by['south'])\n"
                               "by.to_csv('/sandbox/out/summary.csv')\n"
                               "by.plot.bar()\n"
                               "plt.savefig('/sandbox/out/chart.png')\n"
                               "plt.close()\n"),
                files);
        QVERIFY2(!isError(result), describe(result).constData());
        QVERIFY2(stdoutOf(result).contains(QStringLiteral("north 15 south 20")),
                 describe(result).constData());

        // The chart is shown as an image, and both files are linked and listed.
        const QList<QJsonObject> images = blocksOfType(result, QStringLiteral("image"));
        QCOMPARE(images.size(), 1);
        QCOMPARE(images.at(0).value(QLatin1String("mimeType")).toString(),
                 QStringLiteral("image/png"));
        const QByteArray png =
            QByteArray::fromBase64(images.at(0).value(QLatin1String("data")).toString().toLatin1());
        QVERIFY(png.startsWith("\x89PNG\r\n\x1a\n"));
        const QList<QJsonObject> links = blocksOfType(result, QStringLiteral("resource_link"));
        QCOMPARE(links.size(), 2);
        const QJsonObject summary = fileNamed(result, QStringLiteral("summary.csv"));
        QCOMPARE(summary.value(QLatin1String("mime_type")).toString(), QStringLiteral("text/csv"));
        const QString summaryUri = summary.value(QLatin1String("uri")).toString();
        QVERIFY(summaryUri.startsWith(QLatin1String("code-sandbox://runs/")));
        QVERIFY(text(result).contains(summaryUri));

        // resources/read gives the bytes back: text for the CSV, a blob for the PNG.
        const QJsonObject read = server->request(QStringLiteral("resources/read"),
                                                 {{QStringLiteral("uri"), summaryUri}});
        const QJsonObject csv = read.value(QLatin1String("contents")).toArray().at(0).toObject();
        QVERIFY2(csv.value(QLatin1String("text")).toString().contains(QStringLiteral("north,15")),
                 describe(read).constData());
        const QString chartUri =
            fileNamed(result, QStringLiteral("chart.png")).value(QLatin1String("uri")).toString();
        const QJsonObject chart =
            server->request(QStringLiteral("resources/read"), {{QStringLiteral("uri"), chartUri}})
                .value(QLatin1String("contents"))
                .toArray()
                .at(0)
                .toObject();
        QCOMPARE(QByteArray::fromBase64(chart.value(QLatin1String("blob")).toString().toLatin1()),
                 png);
    }

    void resourceOutsideARunIsNotFound()
    {
        auto server = startServer(false);
        QVERIFY(server);
        const QStringList uris{
            QStringLiteral("code-sandbox://runs/00000000-0000-0000-0000-000000000000/out/x"),
            QStringLiteral("code-sandbox://runs/../../etc/passwd"),
            QStringLiteral("code-sandbox://runs/x/%2e%2e/%2e%2e/history.sqlite"),
            QStringLiteral("file:///etc/passwd"),
        };
        for (const QString& uri : uris) {
            const int id = server->sendRequest(QStringLiteral("resources/read"),
                                               {{QStringLiteral("uri"), uri}});
            const auto response = server->waitForResponse(id);
            QVERIFY(response);
            QCOMPARE(response->value(QLatin1String("error"))
                         .toObject()
                         .value(QLatin1String("code"))
                         .toInt(),
                     -32002);
        }
    }

    void badInputFilesAreRefusedClearly()
    {
        auto server = startServer(false);
        QVERIFY(server);
        struct Case
        {
            QJsonObject file;
            QString says;
        };
        const QList<Case> cases{
            {{{QStringLiteral("path"), QStringLiteral("../escape")},
              {QStringLiteral("content"), QStringLiteral("x")}},
             QStringLiteral("\"..\"")},
            {{{QStringLiteral("path"), QStringLiteral("/etc/x")},
              {QStringLiteral("content"), QStringLiteral("x")}},
             QStringLiteral("absolute")},
            {{{QStringLiteral("path"), QStringLiteral("a.bin")},
              {QStringLiteral("content"), QStringLiteral("not base64 at all!")},
              {QStringLiteral("encoding"), QStringLiteral("base64")}},
             QStringLiteral("not valid base64")},
        };
        for (const Case& c : cases) {
            const QJsonObject result = run(*server, QStringLiteral("print(1)"), QJsonArray{c.file});
            QVERIFY2(isError(result), describe(result).constData());
            QVERIFY2(text(result).contains(c.says), describe(result).constData());
        }
        const QJsonObject twice =
            run(*server, QStringLiteral("print(1)"),
                QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("a")},
                                       {QStringLiteral("content"), QString()}},
                           QJsonObject{{QStringLiteral("path"), QStringLiteral("a")},
                                       {QStringLiteral("content"), QString()}}});
        QVERIFY2(text(twice).contains(QStringLiteral("again")), describe(twice).constData());
        // And the server keeps serving.
        QCOMPARE(stdoutOf(run(*server, QStringLiteral("print(2)"))), QStringLiteral("2\n"));
    }

    void base64InputArrivesByteForByte_data() { addModes(); }
    void base64InputArrivesByteForByte()
    {
        QFETCH(bool, pooled);
        auto server = startServer(pooled);
        QVERIFY(server);
        QByteArray bytes;
        for (int i = 0; i < 256 * 64; ++i)
            bytes.append(char(i % 256));
        const QJsonObject result =
            run(*server,
                QStringLiteral(
                    "import hashlib\n"
                    "print(hashlib.sha256(open('deep/er/blob.bin','rb').read()).hexdigest())\n"),
                QJsonArray{
                    QJsonObject{{QStringLiteral("path"), QStringLiteral("deep/er/blob.bin")},
                                {QStringLiteral("content"), QString::fromLatin1(bytes.toBase64())},
                                {QStringLiteral("encoding"), QStringLiteral("base64")}}});
        QVERIFY2(!isError(result), describe(result).constData());
        QCOMPARE(stdoutOf(result).trimmed(),
                 QString::fromLatin1(
                     QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()));
    }

    void hostileOutputsAreBounded_data() { addModes(); }
    void hostileOutputsAreBounded()
    {
        QFETCH(bool, pooled);
        auto server = startServer(pooled);
        QVERIFY(server);
        const qint64 rssBefore = residentKiB(server->pid());
        const QJsonObject result = run(
            *server, QStringLiteral("import os\n"
                                    "os.chdir('/sandbox/out')\n"
                                    "open('big.bin', 'wb').write(os.urandom(33 * 1024 * 1024))\n"
                                    "open('ok.bin', 'wb').write(os.urandom(25 * 1024 * 1024))\n"
                                    "os.symlink('/etc/passwd', 'link-to-passwd')\n"
                                    "os.mkfifo('a-fifo')\n"
                                    "open('fake.png', 'w').write('this is text, not a PNG')\n"
                                    "open('new\\nline.txt', 'w').write('n')\n"
                                    "open(b'bad-\\xff-utf8.txt', 'w').write('b')\n"
                                    "open('a-\\u202egnp.exe', 'w').write('x')\n"
                                    "os.mkdir('zz-many')\n"
                                    "for i in range(10000):\n"
                                    "    open(f'zz-many/{i:05}', 'w').close()\n"
                                    "print('done')\n"));
        QVERIFY2(!isError(result), describe(result).constData());
        QCOMPARE(stdoutOf(result), QStringLiteral("done\n"));
        // Over the 32 MiB total: skipped, said so; the link and the FIFO are never opened.
        QVERIFY2(fileNamed(result, QStringLiteral("big.bin"))
                     .value(QLatin1String("skipped"))
                     .toString()
                     .contains(QStringLiteral("total size")),
                 describe(result).constData());
        QVERIFY(fileNamed(result, QStringLiteral("link-to-passwd"))
                    .value(QLatin1String("skipped"))
                    .toString()
                    .contains(QStringLiteral("symbolic link")));
        QVERIFY(fileNamed(result, QStringLiteral("a-fifo"))
                    .value(QLatin1String("skipped"))
                    .toString()
                    .contains(QStringLiteral("not a regular file")));
        // Named by its content: text, so not shown as an image.
        QCOMPARE(fileNamed(result, QStringLiteral("fake.png"))
                     .value(QLatin1String("mime_type"))
                     .toString(),
                 QStringLiteral("text/plain"));
        QVERIFY(blocksOfType(result, QStringLiteral("image")).isEmpty());
        // Strange names are shown escaped, and still come back.
        QVERIFY2(!fileNamed(result, QStringLiteral("new\\nline.txt")).isEmpty(),
                 describe(result).constData());
        QVERIFY2(!fileNamed(result, QStringLiteral("bad-\uFFFD-utf8.txt")).isEmpty(),
                 describe(result).constData());
        // A right-to-left override would show "\u202egnp.exe" as "exe.png": it is marked.
        QVERIFY2(!fileNamed(result, QStringLiteral("a-⟦U+202E⟧gnp.exe")).isEmpty(),
                 describe(result).constData());
        QVERIFY(!text(result).contains(QChar(0x202E)));
        // 10,000 files: at most the cap come back, and the result says the rest did not.
        const QJsonArray files = filesOf(result);
        int returned = 0;
        for (const QJsonValue& file : files)
            returned += file.toObject().contains(QLatin1String("uri")) ? 1 : 0;
        QCOMPARE(returned, 100);
        QVERIFY2(text(result).contains(QStringLiteral("over the cap on the number")),
                 describe(result).constData());
        QVERIFY2(files.size() < 200, "the skipped files are summed up, not listed one by one");
        // The 25 MiB file under the cap came back, streamed to disk: it never sat in the
        // server's memory.
        QCOMPARE(fileNamed(result, QStringLiteral("ok.bin"))
                     .value(QLatin1String("size_bytes"))
                     .toInteger(),
                 25 * 1024 * 1024);
        const qint64 rssAfter = residentKiB(server->pid());
        QVERIFY2(rssAfter - rssBefore < 12 * 1024,
                 qPrintable(QStringLiteral("RSS %1 -> %2 KiB").arg(rssBefore).arg(rssAfter)));
        // And it keeps serving.
        QCOMPARE(stdoutOf(run(*server, QStringLiteral("print(3)"))), QStringLiteral("3\n"));
    }
};

QTEST_GUILESS_MAIN(TestFiles)
#include "tst_Files.moc"
