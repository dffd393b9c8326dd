// The token every HTTP server of the user shares: made once, private, the same for all who ask
// at once, replaced on request, and refused when others could know it.
#include "transport/http/HttpTokenFile.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <thread>
#include <vector>

using csm::Expected;
using csm::http::HttpServerConfig;
using csm::http::HttpTokenFile;

namespace {
int modeOf(const QString& path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return -1;
    return int(info.st_mode & 07777);
}

bool writeFile(const QString& path, const QByteArray& content, QFile::Permissions permissions)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size() &&
           file.setPermissions(permissions);
}

constexpr QFile::Permissions kOwnerOnly = QFile::ReadOwner | QFile::WriteOwner;
} // namespace

class tst_HttpTokenFile final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_dataDir = m_dir->filePath(QStringLiteral("data"));
    }

    void createdOnFirstUse()
    {
        const HttpTokenFile file = HttpTokenFile::inDataDir(m_dataDir);
        QCOMPARE(file.path(), m_dataDir + QStringLiteral("/http-token"));
        const auto none = file.read();
        QVERIFY2(none, qPrintable(none.error())); // none yet is not an error
        QVERIFY(!*none);
        const Expected<QString> token = file.readOrCreate();
        QVERIFY2(token, qPrintable(token.error()));
        QVERIFY2(QRegularExpression(QStringLiteral("^[0-9a-f]{64}$")).match(*token).hasMatch(),
                 qPrintable(*token));
        QCOMPARE(modeOf(file.path()), 0600);
        QCOMPARE(modeOf(m_dataDir), 0700);
        QCOMPARE(*file.read(), std::optional<QString>(*token));
        QCOMPARE(*file.readOrCreate(), *token);
        // Only the token file is left: no draft beside it.
        QCOMPARE(QDir(m_dataDir).entryList(QDir::Files | QDir::Hidden),
                 QStringList{QStringLiteral("http-token")});
        QVERIFY(HttpTokenFile::generate() != *token);
    }

    // Servers started together (the desktop app and a headless one) end up with one token.
    void creatorsAtOnceAgree()
    {
        const HttpTokenFile file = HttpTokenFile::inDataDir(m_dataDir);
        std::vector<QString> tokens(16);
        std::vector<std::thread> threads;
        for (QString& token : tokens) {
            threads.emplace_back([&file, &token] {
                const Expected<QString> made = file.readOrCreate();
                token = made ? *made : made.error();
            });
        }
        for (std::thread& thread : threads)
            thread.join();
        const auto kept = file.read();
        QVERIFY2(kept && *kept, qPrintable(kept.error()));
        for (const QString& token : tokens)
            QCOMPARE(token, **kept);
        QCOMPARE(QDir(m_dataDir).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }

    void rotateReplacesTheToken()
    {
        const HttpTokenFile file = HttpTokenFile::inDataDir(m_dataDir);
        const Expected<QString> first = file.readOrCreate();
        QVERIFY(first);
        const Expected<QString> second = file.rotate();
        QVERIFY2(second, qPrintable(second.error()));
        QVERIFY(*second != *first);
        QCOMPARE(*file.read(), std::optional<QString>(*second));
        QCOMPARE(modeOf(file.path()), 0600);
    }

    void aTokenOfTheUsersOwnIsKept()
    {
        QVERIFY(QDir().mkpath(m_dataDir));
        const HttpTokenFile file = HttpTokenFile::inDataDir(m_dataDir);
        QVERIFY(writeFile(file.path(), "  my-own-token-1234\n", kOwnerOnly));
        QCOMPARE(file.readOrCreate().valueOr(QString()), QStringLiteral("my-own-token-1234"));
    }

    void unusableFilesAreRefusedAndKept_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<int>("mode");
        QTest::addColumn<QString>("error");
        QTest::newRow("readable by others")
            << QByteArray("0123456789abcdef\n") << 0644 << QStringLiteral("chmod 600");
        QTest::newRow("readable by the group")
            << QByteArray("0123456789abcdef\n") << 0640 << QStringLiteral("chmod 600");
        QTest::newRow("empty") << QByteArray() << 0600 << QStringLiteral("holds no token");
        QTest::newRow("two words")
            << QByteArray("two words\n") << 0600 << QStringLiteral("holds no token");
        QTest::newRow("two lines")
            << QByteArray("one\ntwo\n") << 0600 << QStringLiteral("holds no token");
        QTest::newRow("too large")
            << QByteArray(10'000, 'x') << 0600 << QStringLiteral("not an HTTP token file");
    }

    void unusableFilesAreRefusedAndKept()
    {
        QFETCH(QByteArray, content);
        QFETCH(int, mode);
        QFETCH(QString, error);
        QVERIFY(QDir().mkpath(m_dataDir));
        const HttpTokenFile file = HttpTokenFile::inDataDir(m_dataDir);
        QVERIFY(writeFile(file.path(), content, kOwnerOnly));
        QCOMPARE(::chmod(QFile::encodeName(file.path()).constData(), mode_t(mode)), 0);
        const auto read = file.read();
        QVERIFY(!read);
        QVERIFY2(read.error().contains(error) && read.error().contains(file.path()),
                 qPrintable(read.error()));
        const Expected<QString> made = file.readOrCreate();
        QVERIFY(!made);
        QVERIFY2(made.error().contains(error), qPrintable(made.error()));
        HttpServerConfig config;
        QVERIFY(!file.applyTo(config));
        QCOMPARE(config.authToken, QString());
        // Nothing is overwritten: it may be the user's own.
        QFile kept(file.path());
        QVERIFY(kept.open(QIODevice::ReadOnly));
        QCOMPARE(kept.readAll(), content);
    }

    void applyToGivesOnlyWhatIsMissing()
    {
        const HttpTokenFile file = HttpTokenFile::inDataDir(m_dataDir);
        HttpServerConfig own;
        own.authToken = QStringLiteral("given-by-flag");
        QVERIFY(file.applyTo(own));
        QCOMPARE(own.authToken, QStringLiteral("given-by-flag"));
        QCOMPARE(own.authTokenFile, QString());
        HttpServerConfig none;
        none.noAuth = true;
        QVERIFY(file.applyTo(none));
        QCOMPARE(none.authToken, QString());
        QVERIFY(!QFileInfo::exists(file.path())); // nobody needed it
        HttpServerConfig shared;
        const Expected<void> applied = file.applyTo(shared);
        QVERIFY2(applied, qPrintable(applied.error()));
        QCOMPARE(shared.authToken, file.read().valueOr({}).value_or(QString()));
        QCOMPARE(shared.authTokenFile, file.path());
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_dataDir;
};

QTEST_GUILESS_MAIN(tst_HttpTokenFile)
#include "tst_HttpTokenFile.moc"
