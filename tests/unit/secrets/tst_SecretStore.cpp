#include "secrets/FileSecretBackend.h"
#include "secrets/SecretStore.h"

#include <QDir>
#include <QFile>
#include <QLoggingCategory>
#include <QMap>
#include <QMutex>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <optional>

using namespace csm;

namespace {

// An in-memory keychain whose availability and failures the test sets.
class FakeKeychain final : public SecretBackend
{
    Q_OBJECT

public:
    bool available = true;
    QString unavailableReason = QStringLiteral("no Secret Service: run with --secrets-file or "
                                               "install gnome-keyring (test)");
    QMap<QString, QByteArray> values;
    QMap<QString, QString> failures; // name -> error returned for it

    QString kind() const override { return kKeychainKind; }
    void isAvailable(AvailabilityDone done) override
    {
        later([this, done] {
            done(available, available ? QStringLiteral("fake keychain") : unavailableReason);
        });
    }
    void readValue(const QString& name, ValueDone done) override
    {
        later([this, name, done] {
            if (failures.contains(name))
                done({}, failures.value(name));
            else if (!values.contains(name))
                done({}, QStringLiteral("the keychain holds no value for %1").arg(name));
            else
                done(values.value(name), {});
        });
    }
    void writeValue(const QString& name, const QByteArray& value, Done done) override
    {
        later([this, name, value, done] {
            if (failures.contains(name))
                return done(failures.value(name));
            values.insert(name, value);
            done({});
        });
    }
    void removeValue(const QString& name, Done done) override
    {
        later([this, name, done] {
            values.remove(name);
            done({});
        });
    }

private:
    void later(std::function<void()> function) { QTimer::singleShot(0, this, std::move(function)); }
};

// Every message logged while the test runs, to prove that no value reaches the log.
QMutex logMutex;
QStringList logLines;
QtMessageHandler previousHandler = nullptr;

void captureMessage(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    {
        QMutexLocker locker(&logMutex);
        logLines.append(message);
    }
    previousHandler(type, context, message);
}

} // namespace

class tst_SecretStore final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void autoPicksTheKeychainWhenAvailable();
    void autoFallsBackToTheFile();
    void fileWhenAskedFor();
    void keychainWhenAskedForButMissing();
    void setListRemove();
    void callbacksComeLater();
    void rejectedInput_data();
    void rejectedInput();
    void needsOpen();
    void setPassThrough();
    void resolvePassThrough();
    void resolveIsAllOrNothing();
    void indexNeverHoldsAValue();
    void indexStaysWithItsBackend();
    void emptiedIndexCanSwitch();
    void brokenIndex();
    void valuesNeverLogged();

private:
    // A store on the test's folder with a fake keychain (kept in m_keychain) and the real file
    // backend.
    std::unique_ptr<SecretStore> makeStore(SecretStore::BackendChoice choice);
    QString open(SecretStore& store);
    QString set(SecretStore& store, const QString& name, const QByteArray& value, bool passThrough);
    QString remove(SecretStore& store, const QString& name);
    std::pair<SecretStore::NamedValues, QString> resolve(SecretStore& store);
    QByteArray indexBytes() const;
    QStringList names(const SecretStore& store) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    FakeKeychain* m_keychain = nullptr;
    bool m_keychainAvailable = true;
    QList<QByteArray> m_valuesUsed;
};

void tst_SecretStore::initTestCase()
{
    QLoggingCategory::setFilterRules(QStringLiteral("csm.*=true"));
    previousHandler = qInstallMessageHandler(captureMessage);
}

void tst_SecretStore::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_keychainAvailable = true;
}

void tst_SecretStore::cleanup()
{
    m_keychain = nullptr;
}

std::unique_ptr<SecretStore> tst_SecretStore::makeStore(SecretStore::BackendChoice choice)
{
    auto keychain = std::make_unique<FakeKeychain>();
    keychain->available = m_keychainAvailable;
    m_keychain = keychain.get();
    return std::make_unique<SecretStore>(m_dir->path(), choice, std::move(keychain),
                                         std::make_unique<FileSecretBackend>(m_dir->path()));
}

QString tst_SecretStore::open(SecretStore& store)
{
    std::optional<QString> result;
    store.open([&](const QString& error) { result = error; });
    [&] {
        QTRY_VERIFY(result.has_value());
    }();
    return result.value_or(QStringLiteral("no answer"));
}

QString tst_SecretStore::set(SecretStore& store, const QString& name, const QByteArray& value,
                             bool passThrough)
{
    m_valuesUsed.append(value);
    std::optional<QString> result;
    store.set(name, value, passThrough, [&](const QString& error) { result = error; });
    [&] {
        QTRY_VERIFY(result.has_value());
    }();
    return result.value_or(QStringLiteral("no answer"));
}

QString tst_SecretStore::remove(SecretStore& store, const QString& name)
{
    std::optional<QString> result;
    store.remove(name, [&](const QString& error) { result = error; });
    [&] {
        QTRY_VERIFY(result.has_value());
    }();
    return result.value_or(QStringLiteral("no answer"));
}

std::pair<SecretStore::NamedValues, QString> tst_SecretStore::resolve(SecretStore& store)
{
    std::optional<std::pair<SecretStore::NamedValues, QString>> result;
    store.resolvePassThrough([&](const SecretStore::NamedValues& values, const QString& error) {
        result = std::make_pair(values, error);
    });
    [&] {
        QTRY_VERIFY(result.has_value());
    }();
    return result.value_or(std::make_pair(SecretStore::NamedValues{}, QStringLiteral("none")));
}

QByteArray tst_SecretStore::indexBytes() const
{
    QFile file(QDir(m_dir->path()).filePath(QStringLiteral("secrets.json")));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

QStringList tst_SecretStore::names(const SecretStore& store) const
{
    QStringList result;
    for (const SecretInfo& info : store.list().valueOr({}))
        result.append(info.name);
    return result;
}

void tst_SecretStore::autoPicksTheKeychainWhenAvailable()
{
    auto store = makeStore(SecretStore::BackendChoice::Auto);
    QSignalSpy chosen(store.get(), &SecretStore::backendChosen);
    QVERIFY(store->backendKind().isEmpty());
    QCOMPARE(open(*store), QString());
    QCOMPARE(store->backendKind(), QStringLiteral("keychain"));
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), QStringLiteral("keychain"));
    QCOMPARE(set(*store, QStringLiteral("A"), "value-in-keychain", false), QString());
    QCOMPARE(m_keychain->values.value(QStringLiteral("A")), QByteArray("value-in-keychain"));
    QVERIFY(!QFile::exists(QDir(m_dir->path()).filePath(QStringLiteral("secrets-values.json"))));
    QVERIFY(indexBytes().contains(R"("backend": "keychain")"));
}

void tst_SecretStore::autoFallsBackToTheFile()
{
    m_keychainAvailable = false;
    auto store = makeStore(SecretStore::BackendChoice::Auto);
    QSignalSpy chosen(store.get(), &SecretStore::backendChosen);
    const qsizetype logged = [] {
        QMutexLocker locker(&logMutex);
        return logLines.size();
    }();
    QCOMPARE(open(*store), QString());
    QCOMPARE(store->backendKind(), QStringLiteral("file"));
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), QStringLiteral("file"));
    const QString reason = chosen.at(0).at(1).toString();
    QCOMPARE(store->backendReason(), reason);
    // Says why, and where the values go.
    QVERIFY2(reason.contains(QStringLiteral("no Secret Service")), qPrintable(reason));
    QVERIFY2(reason.contains(QStringLiteral("secrets-values.json")), qPrintable(reason));
    QMutexLocker locker(&logMutex);
    const QString log = logLines.mid(logged).join(QLatin1Char('\n'));
    QVERIFY2(log.contains(QStringLiteral("values are kept in a private file")), qPrintable(log));
}

void tst_SecretStore::fileWhenAskedFor()
{
    auto store = makeStore(SecretStore::BackendChoice::File);
    QCOMPARE(open(*store), QString());
    QCOMPARE(store->backendKind(), QStringLiteral("file"));
    QVERIFY(store->backendReason().contains(QStringLiteral("asked for")));
    QCOMPARE(set(*store, QStringLiteral("A"), "value-in-file", false), QString());
    QVERIFY(m_keychain->values.isEmpty());
    QVERIFY(QFile::exists(QDir(m_dir->path()).filePath(QStringLiteral("secrets-values.json"))));
}

void tst_SecretStore::keychainWhenAskedForButMissing()
{
    m_keychainAvailable = false;
    auto store = makeStore(SecretStore::BackendChoice::Keychain);
    QSignalSpy chosen(store.get(), &SecretStore::backendChosen);
    const QString error = open(*store);
    QVERIFY2(error.startsWith(QStringLiteral("no Secret Service: run with --secrets-file")),
             qPrintable(error));
    QVERIFY(!store->isOpen());
    QCOMPARE(chosen.size(), 0);
    // It may be tried again once the keychain is there.
    m_keychain->available = true;
    QCOMPARE(open(*store), QString());
    QCOMPARE(store->backendKind(), QStringLiteral("keychain"));
}

void tst_SecretStore::setListRemove()
{
    auto store = makeStore(SecretStore::BackendChoice::File);
    QCOMPARE(open(*store), QString());
    QVERIFY(store->list()->isEmpty());
    const QDateTime before = QDateTime::currentDateTimeUtc().addSecs(-1);
    QCOMPARE(set(*store, QStringLiteral("B_TOKEN"), "value-b-123", true), QString());
    QCOMPARE(set(*store, QStringLiteral("A_TOKEN"), "value-a-123", false), QString());
    QCOMPARE(names(*store), (QStringList{QStringLiteral("A_TOKEN"), QStringLiteral("B_TOKEN")}));
    const QList<SecretInfo> secrets = *store->list();
    QVERIFY(!secrets.at(0).passThrough);
    QVERIFY(secrets.at(1).passThrough);
    QVERIFY(secrets.at(0).updatedAt >= before);

    std::optional<std::pair<QByteArray, QString>> read;
    store->read(QStringLiteral("B_TOKEN"), [&](const QByteArray& value, const QString& error) {
        read = std::make_pair(value, error);
    });
    QTRY_VERIFY(read);
    QCOMPARE(*read, std::make_pair(QByteArray("value-b-123"), QString()));

    QSignalSpy changed(store.get(), &SecretStore::secretsChanged);
    QCOMPARE(remove(*store, QStringLiteral("A_TOKEN")), QString());
    QCOMPARE(changed.size(), 1);
    QCOMPARE(names(*store), QStringList{QStringLiteral("B_TOKEN")});
    const QString error = remove(*store, QStringLiteral("A_TOKEN"));
    QVERIFY2(error.contains(QStringLiteral("no secret named A_TOKEN")), qPrintable(error));

    read.reset();
    store->read(QStringLiteral("A_TOKEN"), [&](const QByteArray& value, const QString& failed) {
        read = std::make_pair(value, failed);
    });
    QTRY_VERIFY(read);
    QVERIFY(read->first.isEmpty());
    QVERIFY(read->second.contains(QStringLiteral("no secret named A_TOKEN")));
}

void tst_SecretStore::callbacksComeLater()
{
    auto store = makeStore(SecretStore::BackendChoice::File);
    bool called = false;
    store->open([&](const QString&) { called = true; });
    QVERIFY(!called);
    QTRY_VERIFY(called);
    called = false;
    store->set(QStringLiteral("1BAD"), "value", false, [&](const QString&) { called = true; });
    QVERIFY(!called); // even errors found at once
    QTRY_VERIFY(called);
    called = false;
    store->setPassThrough(QStringLiteral("A"), true, [&](const QString&) { called = true; });
    QVERIFY(!called);
    QTRY_VERIFY(called);
}

void tst_SecretStore::rejectedInput_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty name") << QString() << QByteArray("value")
                                << QStringLiteral("needs a name");
    QTest::newRow("digit first") << QStringLiteral("1TOKEN") << QByteArray("value")
                                 << QStringLiteral("not a valid secret name");
    QTest::newRow("dash") << QStringLiteral("MY-TOKEN") << QByteArray("value")
                          << QStringLiteral("not a valid secret name");
    QTest::newRow("too long") << QString(129, QLatin1Char('A')) << QByteArray("value")
                              << QStringLiteral("longer than 128");
    QTest::newRow("empty value") << QStringLiteral("TOKEN") << QByteArray()
                                 << QStringLiteral("is empty");
    QTest::newRow("NUL in value") << QStringLiteral("TOKEN") << QByteArray("ab\0cd", 5)
                                  << QStringLiteral("NUL byte");
}

void tst_SecretStore::rejectedInput()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, value);
    QFETCH(QString, message);
    auto store = makeStore(SecretStore::BackendChoice::File);
    QCOMPARE(open(*store), QString());
    const QString error = set(*store, name, value, true);
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY(store->list()->isEmpty());
}

void tst_SecretStore::needsOpen()
{
    auto store = makeStore(SecretStore::BackendChoice::File);
    QVERIFY(set(*store, QStringLiteral("A"), "value", false).contains(QStringLiteral("not open")));
    QVERIFY(resolve(*store).second.contains(QStringLiteral("not open")));
    QCOMPARE(open(*store), QString());
    QVERIFY(open(*store).contains(QStringLiteral("already open")));

    // A second open() while the first runs is refused without disturbing the first.
    auto other = makeStore(SecretStore::BackendChoice::Auto);
    std::optional<QString> first;
    std::optional<QString> second;
    other->open([&](const QString& error) { first = error; });
    other->open([&](const QString& error) { second = error; });
    QTRY_VERIFY(first && second);
    QCOMPARE(*first, QString());
    QVERIFY(second->contains(QStringLiteral("already open or opening")));
    QVERIFY(other->isOpen());
}

void tst_SecretStore::setPassThrough()
{
    auto store = makeStore(SecretStore::BackendChoice::File);
    QCOMPARE(open(*store), QString());
    QCOMPARE(set(*store, QStringLiteral("A"), "value-a-123", false), QString());
    std::optional<QString> result;
    store->setPassThrough(QStringLiteral("A"), true, [&](const QString& error) { result = error; });
    QTRY_VERIFY(result);
    QCOMPARE(*result, QString());
    QVERIFY(store->list()->at(0).passThrough);
    result.reset();
    store->setPassThrough(QStringLiteral("NONE"), true,
                          [&](const QString& error) { result = error; });
    QTRY_VERIFY(result);
    QVERIFY(result->contains(QStringLiteral("no secret named NONE")));
}

void tst_SecretStore::resolvePassThrough()
{
    auto store = makeStore(SecretStore::BackendChoice::Keychain);
    QCOMPARE(open(*store), QString());
    QCOMPARE(resolve(*store), std::make_pair(SecretStore::NamedValues{}, QString()));
    QCOMPARE(set(*store, QStringLiteral("C_PASSED"), "value-c-123", true), QString());
    QCOMPARE(set(*store, QStringLiteral("B_KEPT"), "value-b-123", false), QString());
    QCOMPARE(set(*store, QStringLiteral("A_PASSED"), "value-a-123", true), QString());
    const auto [values, error] = resolve(*store);
    QCOMPARE(error, QString());
    const SecretStore::NamedValues expected{{QStringLiteral("A_PASSED"), "value-a-123"},
                                            {QStringLiteral("C_PASSED"), "value-c-123"}};
    QCOMPARE(values, expected);
}

void tst_SecretStore::resolveIsAllOrNothing()
{
    auto store = makeStore(SecretStore::BackendChoice::Keychain);
    QCOMPARE(open(*store), QString());
    QCOMPARE(set(*store, QStringLiteral("A"), "value-a-123", true), QString());
    QCOMPARE(set(*store, QStringLiteral("B"), "value-b-123", true), QString());
    m_keychain->failures.insert(QStringLiteral("B"), QStringLiteral("the keychain is locked"));
    const auto [values, error] = resolve(*store);
    QVERIFY(values.isEmpty());
    QVERIFY2(error.contains(QStringLiteral("B: the keychain is locked")), qPrintable(error));
    QVERIFY2(!error.contains(QStringLiteral("A:")), qPrintable(error));
}

void tst_SecretStore::indexNeverHoldsAValue()
{
    for (const auto choice :
         {SecretStore::BackendChoice::File, SecretStore::BackendChoice::Keychain}) {
        init();
        auto store = makeStore(choice);
        QCOMPARE(open(*store), QString());
        const QByteArray value = "index-must-not-hold-" + QByteArray::number(int(choice));
        QCOMPARE(set(*store, QStringLiteral("TOKEN"), value, true), QString());
        QCOMPARE(set(*store, QStringLiteral("TOKEN"), value + "-2", false), QString());
        const QByteArray bytes = indexBytes();
        QVERIFY(bytes.contains("TOKEN"));
        for (const QByteArray& form :
             {value, value.toBase64(), value.toHex(), QByteArray(value + "-2").toBase64()})
            QVERIFY2(!bytes.contains(form), bytes.constData());
    }
}

void tst_SecretStore::indexStaysWithItsBackend()
{
    {
        m_keychainAvailable = false;
        auto store = makeStore(SecretStore::BackendChoice::Auto);
        QCOMPARE(open(*store), QString());
        QCOMPARE(store->backendKind(), QStringLiteral("file"));
        QCOMPARE(set(*store, QStringLiteral("A"), "value-a-123", true), QString());
    }
    // The keychain is back, but the values are in the file: Auto keeps the file.
    m_keychainAvailable = true;
    {
        auto store = makeStore(SecretStore::BackendChoice::Auto);
        QCOMPARE(open(*store), QString());
        QCOMPARE(store->backendKind(), QStringLiteral("file"));
        QVERIFY(store->backendReason().contains(QStringLiteral("already")));
        QCOMPARE(resolve(*store).first.size(), 1);
    }
    {
        auto store = makeStore(SecretStore::BackendChoice::Keychain);
        const QString error = open(*store);
        QVERIFY2(error.contains(QStringLiteral("kept in the file backend")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("--secrets-file")), qPrintable(error));
        QVERIFY(!store->isOpen());
    }
}

void tst_SecretStore::emptiedIndexCanSwitch()
{
    {
        auto store = makeStore(SecretStore::BackendChoice::Keychain);
        QCOMPARE(open(*store), QString());
        QCOMPARE(set(*store, QStringLiteral("A"), "value-a-123", true), QString());
    }
    {
        auto store = makeStore(SecretStore::BackendChoice::File);
        QVERIFY(open(*store).contains(QStringLiteral("kept in the keychain backend")));
    }
    {
        m_keychainAvailable = false;
        auto store = makeStore(SecretStore::BackendChoice::Auto);
        const QString error = open(*store);
        QVERIFY2(error.contains(QStringLiteral("keychain is not reachable")), qPrintable(error));
    }
    {
        m_keychainAvailable = true;
        auto store = makeStore(SecretStore::BackendChoice::Auto);
        QCOMPARE(open(*store), QString());
        QCOMPARE(remove(*store, QStringLiteral("A")), QString());
    }
    auto store = makeStore(SecretStore::BackendChoice::File);
    QCOMPARE(open(*store), QString());
    QCOMPARE(set(*store, QStringLiteral("B"), "value-b-123", true), QString());
    QVERIFY(indexBytes().contains(R"("backend": "file")"));
}

void tst_SecretStore::brokenIndex()
{
    QFile file(QDir(m_dir->path()).filePath(QStringLiteral("secrets.json")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{broken");
    file.close();
    auto store = makeStore(SecretStore::BackendChoice::Auto);
    QVERIFY(open(*store).contains(file.fileName()));
    const Expected<QList<SecretInfo>> listed = store->list();
    QVERIFY(!listed);
    QVERIFY(listed.error().contains(file.fileName()));
}

void tst_SecretStore::valuesNeverLogged()
{
    // Every test above logged through the capturing handler, with debug output on.
    QMutexLocker locker(&logMutex);
    const QString log = logLines.join(QLatin1Char('\n'));
    QVERIFY(!m_valuesUsed.isEmpty());
    for (const QByteArray& value : std::as_const(m_valuesUsed)) {
        // The short ones ("value") are words that log lines may well hold.
        if (value.size() >= 8)
            QVERIFY2(!log.toUtf8().contains(value), value.constData());
    }
}

QTEST_GUILESS_MAIN(tst_SecretStore)
#include "tst_SecretStore.moc"
