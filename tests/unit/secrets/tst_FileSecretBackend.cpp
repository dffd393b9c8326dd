#include "secrets/FileSecretBackend.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <optional>
#include <sys/stat.h>

using csm::FileSecretBackend;

namespace {

int modeOf(const QString& path)
{
    struct stat status
    {
    };
    return ::stat(QFile::encodeName(path).constData(), &status) == 0
               ? static_cast<int>(status.st_mode & 07777)
               : -1;
}

bool setMode(const QString& path, int mode)
{
    return ::chmod(QFile::encodeName(path).constData(), static_cast<mode_t>(mode)) == 0;
}

} // namespace

class tst_FileSecretBackend final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void roundTrip_data();
    void roundTrip();
    void callbacksComeLater();
    void readMissing();
    void removeValue();
    void fileAndFolderModes();
    void sharedFolderIsMadePrivate();
    void refusesSharedValuesFile_data();
    void refusesSharedValuesFile();
    void brokenValuesFile();
    void availability();
    void valuesAreKeptApartFromTheIndex();

private:
    // Each helper waits (QTRY_*) for the callback; the backend itself never blocks.
    QString write(const QString& name, const QByteArray& value);
    QString remove(const QString& name);
    std::pair<QByteArray, QString> read(const QString& name);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<FileSecretBackend> m_backend;
};

void tst_FileSecretBackend::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_backend = std::make_unique<FileSecretBackend>(m_dir->filePath(QStringLiteral("data")));
}

QString tst_FileSecretBackend::write(const QString& name, const QByteArray& value)
{
    std::optional<QString> result;
    m_backend->writeValue(name, value, [&](const QString& error) { result = error; });
    [&] {
        QTRY_VERIFY(result.has_value());
    }();
    return result.value_or(QStringLiteral("no answer"));
}

QString tst_FileSecretBackend::remove(const QString& name)
{
    std::optional<QString> result;
    m_backend->removeValue(name, [&](const QString& error) { result = error; });
    [&] {
        QTRY_VERIFY(result.has_value());
    }();
    return result.value_or(QStringLiteral("no answer"));
}

std::pair<QByteArray, QString> tst_FileSecretBackend::read(const QString& name)
{
    std::optional<std::pair<QByteArray, QString>> result;
    m_backend->readValue(name, [&](const QByteArray& value, const QString& error) {
        result = std::make_pair(value, error);
    });
    [&] {
        QTRY_VERIFY(result.has_value());
    }();
    return result.value_or(std::make_pair(QByteArray(), QStringLiteral("no answer")));
}

void tst_FileSecretBackend::roundTrip_data()
{
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("ASCII") << QByteArray("ghp_0123456789abcdef");
    QTest::newRow("UTF-8") << QByteArray("pässwörd-🔑");
    QTest::newRow("bytes") << QByteArray("\x01\xff\xfe\x00\x7f", 5);
    QTest::newRow("JSON-looking") << QByteArray(R"({"a": "b\"c"})");
    QTest::newRow("64 KiB") << QByteArray(qsizetype(64) * 1024, 'x');
}

void tst_FileSecretBackend::roundTrip()
{
    QFETCH(QByteArray, value);
    QCOMPARE(write(QStringLiteral("TOKEN"), value), QString());
    QCOMPARE(write(QStringLiteral("OTHER"), "other-value"), QString());
    QCOMPARE(read(QStringLiteral("TOKEN")), std::make_pair(value, QString()));
    // A fresh backend on the same folder reads what the first one wrote.
    FileSecretBackend again(m_backend->filePath().section(QLatin1Char('/'), 0, -2));
    std::optional<QByteArray> readAgain;
    again.readValue(QStringLiteral("TOKEN"),
                    [&](const QByteArray& stored, const QString&) { readAgain = stored; });
    QTRY_VERIFY(readAgain.has_value());
    QCOMPARE(*readAgain, value);
    // Replacing keeps the other values.
    QCOMPARE(write(QStringLiteral("TOKEN"), "replaced"), QString());
    QCOMPARE(read(QStringLiteral("TOKEN")).first, QByteArray("replaced"));
    QCOMPARE(read(QStringLiteral("OTHER")).first, QByteArray("other-value"));
}

void tst_FileSecretBackend::callbacksComeLater()
{
    bool called = false;
    m_backend->writeValue(QStringLiteral("A"), "value", [&](const QString&) { called = true; });
    QVERIFY(!called);
    QTRY_VERIFY(called);
    called = false;
    m_backend->readValue(QStringLiteral("A"),
                         [&](const QByteArray&, const QString&) { called = true; });
    QVERIFY(!called);
    QTRY_VERIFY(called);
}

void tst_FileSecretBackend::readMissing()
{
    auto [value, error] = read(QStringLiteral("NOWHERE"));
    QVERIFY(value.isEmpty());
    QVERIFY2(error.contains(QStringLiteral("no value for NOWHERE")), qPrintable(error));
    QCOMPARE(write(QStringLiteral("A"), "value"), QString());
    std::tie(value, error) = read(QStringLiteral("NOWHERE"));
    QVERIFY2(error.contains(m_backend->filePath()), qPrintable(error));
}

void tst_FileSecretBackend::removeValue()
{
    QCOMPARE(write(QStringLiteral("A"), "value-a"), QString());
    QCOMPARE(write(QStringLiteral("B"), "value-b"), QString());
    QCOMPARE(remove(QStringLiteral("A")), QString());
    QVERIFY(!read(QStringLiteral("A")).second.isEmpty());
    QCOMPARE(read(QStringLiteral("B")).first, QByteArray("value-b"));
    QCOMPARE(remove(QStringLiteral("A")), QString()); // already gone: same outcome
    QFile file(m_backend->filePath());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(!file.readAll().contains(QByteArray("value-a").toBase64()));
}

void tst_FileSecretBackend::fileAndFolderModes()
{
    QCOMPARE(write(QStringLiteral("A"), "value"), QString());
    QCOMPARE(modeOf(m_backend->filePath()), 0600);
    QCOMPARE(modeOf(m_dir->filePath(QStringLiteral("data"))), 0700);
    QCOMPARE(QFileInfo(m_backend->filePath()).fileName(), QStringLiteral("secrets-values.json"));
}

void tst_FileSecretBackend::sharedFolderIsMadePrivate()
{
    const QString folder = m_dir->filePath(QStringLiteral("data"));
    QVERIFY(QDir().mkpath(folder));
    QVERIFY(setMode(folder, 0755));
    QCOMPARE(write(QStringLiteral("A"), "value"), QString());
    QCOMPARE(modeOf(folder), 0700);
}

void tst_FileSecretBackend::refusesSharedValuesFile_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("world-readable") << 0644;
    QTest::newRow("group-readable") << 0640;
    QTest::newRow("others only") << 0604;
    QTest::newRow("group-writable") << 0620;
}

void tst_FileSecretBackend::refusesSharedValuesFile()
{
    QFETCH(int, mode);
    QCOMPARE(write(QStringLiteral("A"), "value"), QString());
    const QString path = m_backend->filePath();
    QVERIFY(setMode(path, mode));
    const QByteArray before = [&] {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }();

    const auto [value, error] = read(QStringLiteral("A"));
    QVERIFY(value.isEmpty());
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("chmod 600 ") + path), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("0%1").arg(mode, 0, 8)), qPrintable(error));
    // Writing is refused as well, and leaves the file for the user to look at.
    QVERIFY(!write(QStringLiteral("B"), "other").isEmpty());
    QVERIFY(!remove(QStringLiteral("A")).isEmpty());
    QCOMPARE(modeOf(path), mode);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), before);

    // The fix the message gives works.
    QVERIFY(setMode(path, 0600));
    QCOMPARE(read(QStringLiteral("A")), std::make_pair(QByteArray("value"), QString()));
}

void tst_FileSecretBackend::brokenValuesFile()
{
    QCOMPARE(write(QStringLiteral("A"), "value"), QString());
    QFile file(m_backend->filePath());
    QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
    file.write(R"({"version": 1, "values": {"A": "not base64 at all!"}})");
    file.close();
    const auto [value, error] = read(QStringLiteral("A"));
    QVERIFY(value.isEmpty());
    QVERIFY2(error.contains(m_backend->filePath()), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("base64")), qPrintable(error));
    QVERIFY2(!error.contains(QStringLiteral("not base64 at all")), qPrintable(error));
}

void tst_FileSecretBackend::availability()
{
    std::optional<std::pair<bool, QString>> answer;
    m_backend->isAvailable(
        [&](bool available, const QString& reason) { answer = std::make_pair(available, reason); });
    QVERIFY(!answer);
    QTRY_VERIFY(answer);
    QVERIFY(answer->first);
    QVERIFY2(answer->second.contains(m_backend->filePath()), qPrintable(answer->second));

    // A data "folder" that is a file cannot hold values.
    QFile blocker(m_dir->filePath(QStringLiteral("blocker")));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    FileSecretBackend blocked(blocker.fileName());
    answer.reset();
    blocked.isAvailable(
        [&](bool available, const QString& reason) { answer = std::make_pair(available, reason); });
    QTRY_VERIFY(answer);
    QVERIFY(!answer->first);
    QVERIFY2(answer->second.contains(QStringLiteral("not a folder")), qPrintable(answer->second));
}

void tst_FileSecretBackend::valuesAreKeptApartFromTheIndex()
{
    QCOMPARE(write(QStringLiteral("A"), "value"), QString());
    const QStringList files =
        QDir(m_dir->filePath(QStringLiteral("data"))).entryList(QDir::Files | QDir::Hidden);
    QCOMPARE(files, QStringList{QStringLiteral("secrets-values.json")});
}

QTEST_GUILESS_MAIN(tst_FileSecretBackend)
#include "tst_FileSecretBackend.moc"
