#include "secrets/SecretIndex.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using csm::Expected;
using csm::SecretIndex;
using csm::SecretInfo;

class tst_SecretIndex final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void names_data();
    void names();
    void missingFileIsEmpty();
    void roundTrip();
    void upsertReplacesAndSorts();
    void remove();
    void fileAndFolderModes();
    void rewritingASharedFileMakesItPrivate();
    void noTemporaryFilesLeft();
    void brokenFiles_data();
    void brokenFiles();

private:
    // The permission bits as the kernel has them, independent of the code under test.
    static int modeOf(const QString& path)
    {
        struct stat status
        {
        };
        return ::stat(QFile::encodeName(path).constData(), &status) == 0
                   ? static_cast<int>(status.st_mode & 07777)
                   : -1;
    }
    static void writeFile(const QString& path, const QByteArray& content);
};

void tst_SecretIndex::writeFile(const QString& path, const QByteArray& content)
{
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(file.write(content), content.size());
}

void tst_SecretIndex::names_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("valid");
    // Valid but reserved: the engine client or the sandbox reads these (nameError() refuses).
    QTest::addColumn<bool>("reserved");
    QTest::newRow("upper") << QStringLiteral("API_TOKEN") << true << false;
    QTest::newRow("lower") << QStringLiteral("token") << true << false;
    QTest::newRow("underscore first") << QStringLiteral("_PRIVATE") << true << false;
    QTest::newRow("one letter") << QStringLiteral("A") << true << false;
    QTest::newRow("underscore only") << QStringLiteral("_") << true << false;
    QTest::newRow("digits after") << QStringLiteral("KEY_2") << true << false;
    QTest::newRow("128 characters") << QString(128, QLatin1Char('A')) << true << false;
    QTest::newRow("129 characters") << QString(129, QLatin1Char('A')) << false << false;
    QTest::newRow("empty") << QString() << false << false;
    QTest::newRow("digit first") << QStringLiteral("1KEY") << false << false;
    QTest::newRow("dash") << QStringLiteral("API-TOKEN") << false << false;
    QTest::newRow("space") << QStringLiteral("API TOKEN") << false << false;
    QTest::newRow("dot") << QStringLiteral("api.token") << false << false;
    QTest::newRow("equals") << QStringLiteral("A=B") << false << false;
    QTest::newRow("non-ASCII letter") << QStringLiteral("SCHLÜSSEL") << false << false;
    QTest::newRow("NUL") << QStringLiteral("A") + QChar(0) << false << false;
    QTest::newRow("dollar") << QStringLiteral("$HOME") << false << false;
    QTest::newRow("PATH") << QStringLiteral("PATH") << true << true;
    QTest::newRow("path, any case") << QStringLiteral("Path") << true << true;
    QTest::newRow("HOME") << QStringLiteral("HOME") << true << true;
    QTest::newRow("DOCKER_HOST") << QStringLiteral("DOCKER_HOST") << true << true;
    QTest::newRow("CONTAINER_HOST") << QStringLiteral("CONTAINER_HOST") << true << true;
    // What the ssh or the TCP connection to a remote engine would follow.
    QTest::newRow("SSH_ASKPASS") << QStringLiteral("SSH_ASKPASS") << true << true;
    QTest::newRow("https_proxy") << QStringLiteral("https_proxy") << true << true;
    QTest::newRow("SSL_CERT_FILE") << QStringLiteral("SSL_CERT_FILE") << true << true;
    QTest::newRow("CONTAINERS_CONF") << QStringLiteral("CONTAINERS_CONF") << true << true;
    QTest::newRow("LD_PRELOAD") << QStringLiteral("LD_PRELOAD") << true << true;
    QTest::newRow("XDG_RUNTIME_DIR") << QStringLiteral("XDG_RUNTIME_DIR") << true << true;
    QTest::newRow("ours") << QStringLiteral("CODE_SANDBOX_ENGINE") << true << true;
    QTest::newRow("TMPDIR") << QStringLiteral("TMPDIR") << true << true;
    QTest::newRow("prefix only as a prefix") << QStringLiteral("MY_DOCKER_TOKEN") << true << false;
    QTest::newRow("PATHFINDER_KEY") << QStringLiteral("PATHFINDER_KEY") << true << false;
}

void tst_SecretIndex::names()
{
    QFETCH(QString, name);
    QFETCH(bool, valid);
    QFETCH(bool, reserved);
    QCOMPARE(SecretInfo::isValidName(name), valid);
    QCOMPARE(SecretInfo::isReservedName(name), reserved);
    QCOMPARE(SecretInfo::nameError(name).isEmpty(), valid && !reserved);
    if (reserved)
        QVERIFY2(SecretInfo::nameError(name).contains(QLatin1String("reserved")),
                 qPrintable(SecretInfo::nameError(name)));
}

void tst_SecretIndex::missingFileIsEmpty()
{
    QTemporaryDir dir;
    SecretIndex index(dir.path());
    const Expected<void> loaded = index.load();
    QVERIFY(loaded);
    QVERIFY(loaded.error().isEmpty());
    QVERIFY(index.isEmpty());
    QVERIFY(index.backendKind().isEmpty());
    QCOMPARE(index.filePath(), dir.filePath(QStringLiteral("secrets.json")));
}

void tst_SecretIndex::roundTrip()
{
    QTemporaryDir dir;
    const QDateTime when =
        QDateTime::fromString(QStringLiteral("2024-05-01T10:20:30.456Z"), Qt::ISODateWithMs);
    SecretIndex written(dir.path());
    written.setBackendKind(QStringLiteral("keychain"));
    written.upsert({QStringLiteral("B_TOKEN"), true, when});
    written.upsert({QStringLiteral("A_TOKEN"), false, when.addSecs(60)});
    const Expected<void> saved = written.save();
    QVERIFY2(saved, qPrintable(saved.error()));

    SecretIndex read(dir.path());
    const Expected<void> loaded = read.load();
    QVERIFY2(loaded, qPrintable(loaded.error()));
    QCOMPARE(read.backendKind(), QStringLiteral("keychain"));
    const QList<SecretInfo> secrets = read.secrets();
    QCOMPARE(secrets.size(), 2);
    QCOMPARE(secrets.at(0).name, QStringLiteral("A_TOKEN"));
    QCOMPARE(secrets.at(0).passThrough, false);
    QCOMPARE(secrets.at(0).updatedAt, when.addSecs(60));
    QCOMPARE(secrets.at(1).name, QStringLiteral("B_TOKEN"));
    QCOMPARE(secrets.at(1).passThrough, true);
    QCOMPARE(secrets.at(1).updatedAt, when);
}

void tst_SecretIndex::upsertReplacesAndSorts()
{
    SecretIndex index(QStringLiteral("/nonexistent"));
    index.upsert({QStringLiteral("C"), false, {}});
    index.upsert({QStringLiteral("A"), false, {}});
    index.upsert({QStringLiteral("B"), false, {}});
    index.upsert({QStringLiteral("A"), true, {}});
    const QList<SecretInfo> secrets = index.secrets();
    QCOMPARE(secrets.size(), 3);
    QCOMPARE(secrets.at(0).name, QStringLiteral("A"));
    QVERIFY(secrets.at(0).passThrough);
    QCOMPARE(secrets.at(1).name, QStringLiteral("B"));
    QCOMPARE(secrets.at(2).name, QStringLiteral("C"));
    QVERIFY(index.find(QStringLiteral("B")));
    QVERIFY(!index.find(QStringLiteral("D")));
}

void tst_SecretIndex::remove()
{
    SecretIndex index(QStringLiteral("/nonexistent"));
    index.upsert({QStringLiteral("A"), false, {}});
    QVERIFY(!index.remove(QStringLiteral("B")));
    QVERIFY(index.remove(QStringLiteral("A")));
    QVERIFY(index.isEmpty());
}

void tst_SecretIndex::fileAndFolderModes()
{
    QTemporaryDir parent;
    const QString dataDir = parent.filePath(QStringLiteral("data/code-sandbox"));
    SecretIndex index(dataDir);
    index.upsert({QStringLiteral("A"), false, QDateTime::currentDateTimeUtc()});
    const Expected<void> saved = index.save();
    QVERIFY2(saved, qPrintable(saved.error()));
    QCOMPARE(modeOf(index.filePath()), 0600);
    // The folder it had to create is private too.
    QCOMPARE(modeOf(dataDir), 0700);
}

void tst_SecretIndex::rewritingASharedFileMakesItPrivate()
{
    QTemporaryDir dir;
    SecretIndex index(dir.path());
    QVERIFY(index.save());
    QVERIFY(::chmod(QFile::encodeName(index.filePath()).constData(), 0644) == 0);
    QCOMPARE(modeOf(index.filePath()), 0644);
    QVERIFY(index.save());
    QCOMPARE(modeOf(index.filePath()), 0600);
}

void tst_SecretIndex::noTemporaryFilesLeft()
{
    QTemporaryDir dir;
    SecretIndex index(dir.path());
    for (int i = 0; i < 5; ++i) {
        index.upsert({QStringLiteral("S_%1").arg(i), i % 2 == 0, QDateTime::currentDateTimeUtc()});
        QVERIFY(index.save());
    }
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{QStringLiteral("secrets.json")});
}

void tst_SecretIndex::brokenFiles_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("reason");
    QTest::newRow("not JSON") << QByteArray("{nope") << QString();
    QTest::newRow("an array") << QByteArray("[]") << QStringLiteral("not a JSON object");
    QTest::newRow("no version") << QByteArray(R"({"secrets": []})")
                                << QStringLiteral("format version");
    QTest::newRow("future version")
        << QByteArray(R"({"version": 2, "secrets": []})") << QStringLiteral("format version 2");
    QTest::newRow("unknown backend")
        << QByteArray(R"({"version": 1, "backend": "cloud", "secrets": []})")
        << QStringLiteral("unknown backend");
    QTest::newRow("bad name") << QByteArray(R"({"version": 1, "secrets": [{"name": "NOT-VALID"}]})")
                              << QStringLiteral("not a valid secret name");
    QTest::newRow("twice") << QByteArray(
                                  R"({"version": 1, "secrets": [{"name": "A"}, {"name": "A"}]})")
                           << QStringLiteral("listed twice");
}

void tst_SecretIndex::brokenFiles()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, reason);
    QTemporaryDir dir;
    SecretIndex index(dir.path());
    writeFile(index.filePath(), content);
    const Expected<void> loaded = index.load();
    QVERIFY(!loaded);
    const QString error = loaded.error();
    QVERIFY2(error.contains(index.filePath()), qPrintable(error));
    QVERIFY2(error.contains(reason), qPrintable(error));
    QVERIFY(index.isEmpty());
}

QTEST_GUILESS_MAIN(tst_SecretIndex)
#include "tst_SecretIndex.moc"
