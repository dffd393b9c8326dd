// Secrets set with `code-sandbox-mcp secrets` reaching sandboxes through the real server and a
// real container engine (CSM_TEST_ENGINE=podman|docker), with the values in a real Secret Service
// (run under with-secret-service: a throwaway gnome-keyring on a private D-Bus session) or in the
// file fallback. A program that prints a secret returns [secret:NAME]; the value appears in no
// process's argv, no log line, no progress message and no file of the data folder.
#include "CallResult.h"
#include "HostProcesses.h"
#include "McpStdioClient.h"
#include "ServerCli.h"
#include "TestEngine.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

using namespace callresult;

namespace {

QByteArray randomValue(const char* prefix)
{
    QByteArray value(prefix);
    for (int i = 0; i < 3; ++i)
        value += QByteArray::number(QRandomGenerator::system()->generate64(), 36);
    return value;
}

QString sha256(const QByteArray& value)
{
    return QString::fromLatin1(QCryptographicHash::hash(value, QCryptographicHash::Sha256).toHex());
}

// Prints the secret (twice, the second time as the latest line for progress), its hash (so the
// test knows which value arrived without the value being returned) and waits, so that the test
// can look at every process meanwhile.
QString printingProgram(const QString& name, double sleepSeconds)
{
    return QStringLiteral("import hashlib, os, time\n"
                          "v = os.environ.get('%1')\n"
                          "if v is None:\n"
                          "    print('unset', flush=True)\n"
                          "else:\n"
                          "    print('value:', v, flush=True)\n"
                          "    print('sha:', hashlib.sha256(v.encode()).hexdigest(), flush=True)\n"
                          "    print('again', v, flush=True)\n"
                          "time.sleep(%2)\n")
        .arg(name)
        .arg(sleepSeconds);
}

// Every file under `dir` (the history database and its WAL, the secrets index...) except those
// named in `except`, and the ones that hold `needle`.
QStringList filesContaining(const QString& dir, const QByteArray& needle,
                            const QStringList& except = {})
{
    QStringList found;
    QDirIterator files(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString path = files.next();
        if (except.contains(QFileInfo(path).fileName()))
            continue;
        QFile file(path);
        if (file.open(QIODevice::ReadOnly) && file.readAll().contains(needle))
            found << path;
    }
    return found;
}

// The entry of structuredContent.files for `path`.
QJsonObject outputFileEntry(const QJsonObject& result, const QString& path)
{
    const QJsonArray files = structured(result).value(QLatin1String("files")).toArray();
    for (const QJsonValue& file : files) {
        if (file.toObject().value(QLatin1String("path")).toString() == path)
            return file.toObject();
    }
    return {};
}

QString lineAfter(const QString& text, const QString& prefix)
{
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        if (line.startsWith(prefix))
            return line.mid(prefix.size());
    }
    return {};
}

// `code-sandbox-mcp secrets set NAME FLAGS --data-dir DATA` with `value` on its stdin.
servercli::Result setSecret(const QString& name, const QByteArray& value, const QString& dataDir,
                            const QStringList& flags = {QStringLiteral("--pass-through")})
{
    return servercli::run(QStringList{QStringLiteral("secrets"), QStringLiteral("set"), name} +
                              flags + QStringList{QStringLiteral("--data-dir"), dataDir},
                          value);
}

} // namespace

class tst_SecretsInSandboxes final : public QObject
{
    Q_OBJECT

private:
    QStringList serverArguments(const QString& dataDir, const QStringList& extra = {}) const
    {
        return QStringList{QStringLiteral("--engine"), TestEngine::name(),
                           QStringLiteral("--data-dir"), dataDir, QStringLiteral("--verbose")} +
               extra;
    }

    std::unique_ptr<McpStdioClient> startServer(const QStringList& arguments)
    {
        auto server = std::make_unique<McpStdioClient>();
        if (!server->start(arguments, QProcessEnvironment::systemEnvironment()))
            return nullptr;
        if (server->initialize().isEmpty())
            return nullptr;
        return server;
    }

    // Ends the server and returns everything it logged.
    static QString stopServer(McpStdioClient& server)
    {
        server.closeStdin();
        server.waitForExit(20'000);
        return server.standardError();
    }

private Q_SLOTS:
    void initTestCase()
    {
        // The keychain cases need the throwaway Secret Service, never a real user's keyring.
        QVERIFY2(qEnvironmentVariable("CSM_TEST_SECRET_SERVICE") == QLatin1String("1"),
                 "run under tests/integration/with-secret-service");
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python")),
                 "the Python image is not built: containers/build-images");
    }

    void keychainSecretReachesTheSandboxRedacted()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QByteArray value = randomValue("csm-key-");
        const servercli::Result set =
            setSecret(QStringLiteral("API_TOKEN"), value + "\n", data.path());
        QVERIFY2(set.exitCode == 0, set.err.constData());
        QVERIFY2(set.out.contains("keychain"), set.out.constData());
        // The keychain holds it: no values file was written.
        QVERIFY(!QFile::exists(data.filePath(QStringLiteral("secrets-values.json"))));

        auto server = startServer(serverArguments(data.path()));
        QVERIFY(server);
        const int id = server->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"), code(printingProgram(QStringLiteral("API_TOKEN"), 2.5))},
             {QStringLiteral("_meta"),
              QJsonObject{{QStringLiteral("progressToken"), QStringLiteral("p1")}}}});

        // While the program runs (it has printed the value and sleeps): the value is in no
        // process's command line, the engine's included.
        QStringList progressMessages;
        bool scanned = false;
        std::optional<QJsonObject> response;
        while (!response) {
            const auto message = server->waitForMessage(
                [id](const QJsonObject& m) {
                    return m.value(QLatin1String("id")).toInt(-1) == id ||
                           m.value(QLatin1String("method")).toString() ==
                               QLatin1String("notifications/progress");
                },
                60'000);
            QVERIFY(message);
            if (message->contains(QLatin1String("id"))) {
                response = message;
                continue;
            }
            const QString progress = message->value(QLatin1String("params"))
                                         .toObject()
                                         .value(QLatin1String("message"))
                                         .toString();
            progressMessages << progress;
            if (!scanned && progress.startsWith(QLatin1String("again"))) {
                scanned = true;
                for (const QString& line : hostprocesses::allCommandLines())
                    QVERIFY2(!line.toUtf8().contains(value), qPrintable(line));
            }
        }
        QVERIFY2(scanned, qPrintable(progressMessages.join(QLatin1Char('|'))));
        QVERIFY2(progressMessages.contains(QStringLiteral("again [secret:API_TOKEN]")),
                 qPrintable(progressMessages.join(QLatin1Char('|'))));
        for (const QString& progress : std::as_const(progressMessages))
            QVERIFY(!progress.toUtf8().contains(value));

        const QJsonObject result = response->value(QLatin1String("result")).toObject();
        QVERIFY(!QJsonDocument(*response).toJson().contains(value));
        const QString out = stdoutOf(result);
        QCOMPARE(lineAfter(out, QStringLiteral("value: ")), QStringLiteral("[secret:API_TOKEN]"));
        // The sandbox had the real value.
        QCOMPARE(lineAfter(out, QStringLiteral("sha: ")), sha256(value));
        QVERIFY(text(result).contains(QLatin1String("[secret:API_TOKEN]")));

        const QString log = stopServer(*server);
        QVERIFY2(log.contains(QLatin1String("API_TOKEN")), qPrintable(log)); // names are logged
        QVERIFY(!log.toUtf8().contains(value));
        QCOMPARE(filesContaining(data.path(), value), QStringList());
        // The history holds the marker where the value was.
        const servercli::Result history =
            servercli::run({QStringLiteral("history"), QStringLiteral("list"),
                            QStringLiteral("--json"), QStringLiteral("--data-dir"), data.path()});
        QCOMPARE(history.exitCode, 0);
        const QJsonArray runs = QJsonDocument::fromJson(history.out).array();
        QCOMPARE(runs.size(), 1);
        QVERIFY(runs.at(0)
                    .toObject()
                    .value(QLatin1String("stdout"))
                    .toString()
                    .contains(QLatin1String("value: [secret:API_TOKEN]")));
    }

    // The output cap cuts the output inside the value: the value's first bytes would come back
    // as they are, since what is left of it no longer matches.
    void aValueCutByTheOutputCapNeverComesBack()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QByteArray value = randomValue("csm-cut-");
        const servercli::Result set =
            setSecret(QStringLiteral("API_TOKEN"), value + "\n", data.path());
        QVERIFY2(set.exitCode == 0, set.err.constData());
        auto server = startServer(
            serverArguments(data.path(), {QStringLiteral("--output-cap"), QStringLiteral("1k")}));
        QVERIFY(server);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(
                QStringLiteral("import os, sys\n"
                               "sys.stdout.write('x' * (1024 - 12) + os.environ['API_TOKEN'])\n")));
        QCOMPARE(structured(result).value(QLatin1String("truncated")).toBool(), true);
        const QString out = stdoutOf(result);
        QCOMPARE(out, QString(1024 - 12, u'x'));
        QVERIFY(!QJsonDocument(result).toJson().contains(value.left(12)));
        stopServer(*server);
        QCOMPARE(filesContaining(data.path(), value.left(12)), QStringList());
    }

    void aChangedSecretAppliesToTheNextRun()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QStringList where{QStringLiteral("--data-dir"), data.path()};
        const QByteArray first = randomValue("first-");
        QCOMPARE(setSecret(QStringLiteral("API_TOKEN"), first, data.path()).exitCode, 0);
        auto server = startServer(serverArguments(data.path()));
        QVERIFY(server);
        const auto hashSeen = [&server] {
            const QJsonObject result =
                server->callTool(QStringLiteral("run_python_code"),
                                 code(printingProgram(QStringLiteral("API_TOKEN"), 0)));
            const QString out = stdoutOf(result);
            return out.startsWith(QLatin1String("unset")) ? QStringLiteral("unset")
                                                          : lineAfter(out, QStringLiteral("sha: "));
        };
        QCOMPARE(hashSeen(), sha256(first));
        // The pool refills with containers that hold the first value.
        QTest::qWait(3000);

        // Changed from another process: the very next run has the new value.
        const QByteArray second = randomValue("second-");
        QCOMPARE(setSecret(QStringLiteral("API_TOKEN"), second, data.path(), {}).exitCode, 0);
        QCOMPARE(hashSeen(), sha256(second));
        QCOMPARE(hashSeen(), sha256(second)); // and the pool's replacements have it too

        QCOMPARE(
            servercli::run(QStringList{QStringLiteral("secrets"), QStringLiteral("pass-through"),
                                       QStringLiteral("API_TOKEN"), QStringLiteral("off")} +
                           where)
                .exitCode,
            0);
        QCOMPARE(hashSeen(), QStringLiteral("unset"));

        QCOMPARE(
            servercli::run(QStringList{QStringLiteral("secrets"), QStringLiteral("pass-through"),
                                       QStringLiteral("API_TOKEN"), QStringLiteral("on")} +
                           where)
                .exitCode,
            0);
        QCOMPARE(hashSeen(), sha256(second));
        QCOMPARE(servercli::run(QStringList{QStringLiteral("secrets"), QStringLiteral("rm"),
                                            QStringLiteral("API_TOKEN")} +
                                where)
                     .exitCode,
                 0);
        QCOMPARE(hashSeen(), QStringLiteral("unset"));

        const QString log = stopServer(*server);
        QVERIFY(!log.toUtf8().contains(first));
        QVERIFY(!log.toUtf8().contains(second));
        QCOMPARE(filesContaining(data.path(), first), QStringList());
        QCOMPARE(filesContaining(data.path(), second), QStringList());
    }

    void noRedactReturnsTheValueButNeverRecordsIt()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QByteArray value = randomValue("plain-");
        QCOMPARE(setSecret(QStringLiteral("API_TOKEN"), value, data.path()).exitCode, 0);
        auto server = startServer(serverArguments(data.path(), {QStringLiteral("--no-redact")}));
        QVERIFY(server);
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"),
                             code(printingProgram(QStringLiteral("API_TOKEN"), 0)));
        QCOMPARE(lineAfter(stdoutOf(result), QStringLiteral("value: ")), QString::fromUtf8(value));
        const QString log = stopServer(*server);
        QVERIFY(log.contains(QLatin1String("--no-redact")));
        QVERIFY(!log.toUtf8().contains(value));
        QCOMPARE(filesContaining(data.path(), value), QStringList());
    }

    void secretsNeverReachTheFilesOfARun()
    {
        // The program writes the value into its output files, and the client sends it in an
        // input file: what is kept (the history's copy, which resources/read serves) has the
        // marker in text files, and a binary file with the value is not kept at all.
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QByteArray value = randomValue("out-");
        QCOMPARE(setSecret(QStringLiteral("FILE_TOKEN"), value, data.path(),
                           {QStringLiteral("--pass-through"), QStringLiteral("--secrets-file")})
                     .exitCode,
                 0);
        auto server = startServer(serverArguments(data.path(), {QStringLiteral("--secrets-file")}));
        QVERIFY(server);
        QJsonObject arguments = code(QStringLiteral(
            "import os\n"
            "v = os.environ['FILE_TOKEN']\n"
            "open('/sandbox/out/token.txt', 'w').write('token=' + v + '\\n')\n"
            "open('/sandbox/out/blob.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + v.encode() + "
            "bytes(64))\n"
            "open('/sandbox/out/clean.txt', 'w').write('nothing\\n')\n"
            "print(open('in.txt').read() == 'key=' + v)\n"));
        arguments.insert(
            QStringLiteral("files"),
            QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("in.txt")},
                                   {QStringLiteral("content"),
                                    QString(QStringLiteral("key=") + QString::fromUtf8(value))}}});
        const QJsonObject result = server->callTool(QStringLiteral("run_python_code"), arguments);
        QCOMPARE(stdoutOf(result), QStringLiteral("True\n")); // the sandbox had the value

        const QJsonObject token = outputFileEntry(result, QStringLiteral("token.txt"));
        QVERIFY(!token.contains(QLatin1String("skipped")));
        const QJsonObject read = server->request(
            QStringLiteral("resources/read"),
            {{QStringLiteral("uri"), token.value(QLatin1String("uri")).toString()}});
        QCOMPARE(read.value(QLatin1String("contents"))
                     .toArray()
                     .at(0)
                     .toObject()
                     .value(QLatin1String("text"))
                     .toString(),
                 QStringLiteral("token=[secret:FILE_TOKEN]\n"));
        QVERIFY2(outputFileEntry(result, QStringLiteral("blob.png"))
                     .value(QLatin1String("skipped"))
                     .toString()
                     .contains(QLatin1String("secret")),
                 qPrintable(QString::fromUtf8(QJsonDocument(result).toJson())));
        QVERIFY(!outputFileEntry(result, QStringLiteral("clean.txt"))
                     .contains(QLatin1String("skipped")));
        QVERIFY(!QJsonDocument(result).toJson().contains(value));

        stopServer(*server);
        const QStringList holding =
            filesContaining(data.path(), value, {QStringLiteral("secrets-values.json")});
        QVERIFY2(holding.isEmpty(), qPrintable(holding.join(u' ')));
        // The input's copy is kept, with the marker.
        const QStringList inputCopies = filesContaining(data.path(), "key=[secret:FILE_TOKEN]");
        QCOMPARE(inputCopies.size(), 1);
        QVERIFY(inputCopies.at(0).endsWith(QLatin1String("/in/in.txt")));
    }

    void fileFallbackReachesTheSandbox()
    {
        QTemporaryDir data;
        QVERIFY(data.isValid());
        const QByteArray value = randomValue("file-");
        const servercli::Result set =
            setSecret(QStringLiteral("FILE_TOKEN"), value, data.path(),
                      {QStringLiteral("--pass-through"), QStringLiteral("--secrets-file")});
        QVERIFY2(set.exitCode == 0, set.err.constData());
        const QString valuesFile = data.filePath(QStringLiteral("secrets-values.json"));
        QCOMPARE(QFile::permissions(valuesFile) & ~(QFile::ReadUser | QFile::WriteUser),
                 QFileDevice::ReadOwner | QFileDevice::WriteOwner);

        auto server = startServer(serverArguments(data.path(), {QStringLiteral("--secrets-file")}));
        QVERIFY(server);
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"),
                             code(printingProgram(QStringLiteral("FILE_TOKEN"), 0)));
        QCOMPARE(lineAfter(stdoutOf(result), QStringLiteral("sha: ")), sha256(value));
        QCOMPARE(lineAfter(stdoutOf(result), QStringLiteral("value: ")),
                 QStringLiteral("[secret:FILE_TOKEN]"));
        const QString log = stopServer(*server);
        QVERIFY(!log.toUtf8().contains(value));
        // Only the values file (its whole point, base64 there) holds it.
        QCOMPARE(filesContaining(data.path(), value, {QStringLiteral("secrets-values.json")}),
                 QStringList());
        QCOMPARE(filesContaining(data.path(), value.toBase64()), QStringList{valuesFile});
    }
};

QTEST_GUILESS_MAIN(tst_SecretsInSandboxes)
#include "tst_SecretsInSandboxes.moc"
