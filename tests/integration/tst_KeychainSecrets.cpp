// The keychain backend against a real Secret Service: run it through with-secret-service,
// which starts a throwaway, unlocked gnome-keyring on a private D-Bus session and a temporary
// HOME, so that the user's own keyring is never touched.

#include "secrets/KeychainSecretBackend.h"
#include "secrets/SecretStore.h"

#include <QCoreApplication>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QLoggingCategory>
#include <QMutex>
#include <QProcess>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <cstdio>
#include <fcntl.h>
#include <optional>
#include <unistd.h>

using namespace csm;

namespace {

// Set by with-secret-service: without it this process would talk to the user's keyring.
const char kSandboxVariable[] = "CSM_TEST_SECRET_SERVICE";
// Child mode: the store is opened in another process, with another D-Bus environment.
const char kChildVariable[] = "CSM_KEYCHAIN_TEST_CHILD";
const char kChildDataVariable[] = "CSM_KEYCHAIN_TEST_DATA";
const char kChildValueVariable[] = "CSM_KEYCHAIN_TEST_VALUE";
// Generous: the Secret Service answers in milliseconds, the probe gives up after 10 s.
constexpr int kWaitMs = 20000;

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

// Opens a store as the server would and prints what it chose, one `key=value` per line; with a
// value in kChildValueVariable, then stores it as TOKEN and prints the outcome.
int runChild(QCoreApplication& app)
{
    const auto choice = qgetenv(kChildVariable) == "keychain" ? SecretStore::BackendChoice::Keychain
                                                              : SecretStore::BackendChoice::Auto;
    SecretStore store(qEnvironmentVariable(kChildDataVariable), choice);
    const auto print = [](const QString& text) {
        std::fputs(text.toUtf8().constData(), stdout);
        std::fflush(stdout);
    };
    store.open([&](const QString& error) {
        print(QStringLiteral("kind=%1\nreason=%2\nerror=%3\n")
                  .arg(store.backendKind(), store.backendReason(), error));
        const QByteArray value = qgetenv(kChildValueVariable);
        if (!error.isEmpty() || value.isEmpty()) {
            app.exit(0);
            return;
        }
        store.set(QStringLiteral("TOKEN"), value, true, [&](const QString& failed) {
            print(QStringLiteral("set-error=%1\n").arg(failed));
            app.exit(0);
        });
    });
    QTimer::singleShot(kWaitMs, &app, [&app] { app.exit(3); });
    return app.exec();
}

} // namespace

class tst_KeychainSecrets final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void autoPicksTheKeychain();
    void setReadReplaceRemove();
    void resolvePassThrough();
    void aLaterStoreFindsTheValues();
    void withoutSecretService_data();
    void withoutSecretService();
    void serviceWithoutKeyring();
    void lockedKeychain();
    void valuesNeverInPlaintext();

private:
    QByteArray newValue(const QByteArray& label);
    QString open(SecretStore& store);
    QString set(SecretStore& store, const QString& name, const QByteArray& value, bool passThrough);
    std::pair<QByteArray, QString> read(SecretStore& store, const QString& name);
    QString remove(SecretStore& store, const QString& name);
    std::pair<SecretStore::NamedValues, QString> resolve(SecretStore& store);
    // What `secret-tool` finds under our service: proof that the value is in the Secret
    // Service itself. The value comes back on stdout; only attribute names are in argv.
    static QByteArray lookUpWithSecretTool(const QString& name);
    static int countWithSecretTool(const QString& name);
    static QByteArray runTool(const QString& program, const QStringList& arguments);

    QString m_dataDir;
    QList<QByteArray> m_values;
    QTemporaryDir m_scratch;
    QString m_stderrPath;
    int m_realStderr = -1;
};

QByteArray tst_KeychainSecrets::newValue(const QByteArray& label)
{
    QByteArray value = "csm-" + label + '-';
    for (int i = 0; i < 24; ++i)
        value += static_cast<char>('a' + QRandomGenerator::global()->bounded(26));
    m_values.append(value);
    return value;
}

QString tst_KeychainSecrets::open(SecretStore& store)
{
    std::optional<QString> result;
    store.open([&](const QString& error) { result = error; });
    [&] {
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), kWaitMs);
    }();
    return result.value_or(QStringLiteral("no answer"));
}

QString tst_KeychainSecrets::set(SecretStore& store, const QString& name, const QByteArray& value,
                                 bool passThrough)
{
    std::optional<QString> result;
    store.set(name, value, passThrough, [&](const QString& error) { result = error; });
    [&] {
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), kWaitMs);
    }();
    return result.value_or(QStringLiteral("no answer"));
}

std::pair<QByteArray, QString> tst_KeychainSecrets::read(SecretStore& store, const QString& name)
{
    std::optional<std::pair<QByteArray, QString>> result;
    store.read(name, [&](const QByteArray& value, const QString& error) {
        result = std::make_pair(value, error);
    });
    [&] {
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), kWaitMs);
    }();
    return result.value_or(std::make_pair(QByteArray(), QStringLiteral("no answer")));
}

QString tst_KeychainSecrets::remove(SecretStore& store, const QString& name)
{
    std::optional<QString> result;
    store.remove(name, [&](const QString& error) { result = error; });
    [&] {
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), kWaitMs);
    }();
    return result.value_or(QStringLiteral("no answer"));
}

std::pair<SecretStore::NamedValues, QString> tst_KeychainSecrets::resolve(SecretStore& store)
{
    std::optional<std::pair<SecretStore::NamedValues, QString>> result;
    store.resolvePassThrough([&](const SecretStore::NamedValues& values, const QString& error) {
        result = std::make_pair(values, error);
    });
    [&] {
        QTRY_VERIFY_WITH_TIMEOUT(result.has_value(), kWaitMs);
    }();
    return result.value_or(std::make_pair(SecretStore::NamedValues{}, QStringLiteral("none")));
}

QByteArray tst_KeychainSecrets::runTool(const QString& program, const QStringList& arguments)
{
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForFinished(kWaitMs))
        return {};
    return process.readAllStandardOutput();
}

QByteArray tst_KeychainSecrets::lookUpWithSecretTool(const QString& name)
{
    // QtKeychain stores binary values base64-encoded, with type=base64.
    return QByteArray::fromBase64(
        runTool(QStringLiteral("secret-tool"),
                {QStringLiteral("lookup"), QStringLiteral("user"), name, QStringLiteral("server"),
                 QString(KeychainSecretBackend::kService)}));
}

int tst_KeychainSecrets::countWithSecretTool(const QString& name)
{
    const QByteArray listing =
        runTool(QStringLiteral("secret-tool"),
                {QStringLiteral("search"), QStringLiteral("--all"), QStringLiteral("user"), name,
                 QStringLiteral("server"), QString(KeychainSecretBackend::kService)});
    // One "[/org/freedesktop/secrets/collection/...]" header per item.
    return int(listing.count("\n[/") + (listing.startsWith("[/") ? 1 : 0));
}

void tst_KeychainSecrets::initTestCase()
{
    if (qgetenv(kSandboxVariable) != "1")
        QSKIP("run through tests/integration/with-secret-service: it isolates the keyring");
    QVERIFY(!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS"));
    const QString home = QDir::homePath();
    QVERIFY2(qEnvironmentVariable("XDG_DATA_HOME").startsWith(home), qPrintable(home));
    QVERIFY(m_scratch.isValid());

    // Everything this process writes to stderr (GLib and libsecret warnings included) goes to
    // a file, checked for values at the end and then replayed.
    std::fflush(stderr);
    m_stderrPath = m_scratch.filePath(QStringLiteral("stderr.log"));
    const int capture =
        ::open(QFile::encodeName(m_stderrPath).constData(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    QVERIFY(capture >= 0);
    m_realStderr = ::dup(STDERR_FILENO);
    QVERIFY(::dup2(capture, STDERR_FILENO) >= 0);
    ::close(capture);

    QLoggingCategory::setFilterRules(QStringLiteral("csm.*=true"));
    previousHandler = qInstallMessageHandler(captureMessage);

    m_dataDir = SecretStore::defaultDataDir();
    QVERIFY2(m_dataDir.startsWith(home), qPrintable(m_dataDir));
}

void tst_KeychainSecrets::cleanupTestCase()
{
    if (m_realStderr < 0)
        return;
    std::fflush(stderr);
    ::dup2(m_realStderr, STDERR_FILENO);
    ::close(m_realStderr);
    QFile captured(m_stderrPath);
    if (captured.open(QIODevice::ReadOnly))
        std::fputs(captured.readAll().constData(), stderr);
}

void tst_KeychainSecrets::autoPicksTheKeychain()
{
    SecretStore store(m_dataDir, SecretStore::BackendChoice::Auto);
    QSignalSpy chosen(&store, &SecretStore::backendChosen);
    const qsizetype logged = [] {
        QMutexLocker locker(&logMutex);
        return logLines.size();
    }();
    QCOMPARE(open(store), QString());
    QCOMPARE(store.backendKind(), QStringLiteral("keychain"));
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(), QStringLiteral("keychain"));
    QVERIFY2(store.backendReason().contains(QStringLiteral("Secret Service answered")),
             qPrintable(store.backendReason()));
    QMutexLocker locker(&logMutex);
    QVERIFY(logLines.mid(logged)
                .join(QLatin1Char('\n'))
                .contains(QStringLiteral("values are kept in the keychain")));
}

void tst_KeychainSecrets::setReadReplaceRemove()
{
    SecretStore store(m_dataDir, SecretStore::BackendChoice::Keychain);
    QCOMPARE(open(store), QString());
    const QByteArray first = newValue("first");
    QCOMPARE(set(store, QStringLiteral("API_TOKEN"), first, false), QString());
    QCOMPARE(read(store, QStringLiteral("API_TOKEN")), std::make_pair(first, QString()));
    QCOMPARE(lookUpWithSecretTool(QStringLiteral("API_TOKEN")), first);
    QVERIFY(!QFile::exists(QDir(m_dataDir).filePath(QStringLiteral("secrets-values.json"))));

    const QByteArray second = newValue("second");
    QCOMPARE(set(store, QStringLiteral("API_TOKEN"), second, false), QString());
    QCOMPARE(read(store, QStringLiteral("API_TOKEN")).first, second);
    QCOMPARE(countWithSecretTool(QStringLiteral("API_TOKEN")), 1);

    QCOMPARE(remove(store, QStringLiteral("API_TOKEN")), QString());
    QCOMPARE(countWithSecretTool(QStringLiteral("API_TOKEN")), 0);
    QVERIFY(store.list()->isEmpty());
    QVERIFY(read(store, QStringLiteral("API_TOKEN")).second.contains(QStringLiteral("no secret")));

    // Straight to the backend: the keychain has nothing left under that name.
    KeychainSecretBackend backend;
    std::optional<QString> error;
    backend.readValue(QStringLiteral("API_TOKEN"),
                      [&](const QByteArray&, const QString& failed) { error = failed; });
    QTRY_VERIFY_WITH_TIMEOUT(error.has_value(), kWaitMs);
    QVERIFY2(error->contains(QStringLiteral("holds no value for API_TOKEN")), qPrintable(*error));
}

void tst_KeychainSecrets::resolvePassThrough()
{
    SecretStore store(m_dataDir, SecretStore::BackendChoice::Keychain);
    QCOMPARE(open(store), QString());
    const QByteArray a = newValue("a");
    const QByteArray b = newValue("b");
    const QByteArray c = newValue("c");
    QCOMPARE(set(store, QStringLiteral("C_TOKEN"), c, true), QString());
    QCOMPARE(set(store, QStringLiteral("B_TOKEN"), b, false), QString());
    QCOMPARE(set(store, QStringLiteral("A_TOKEN"), a, true), QString());
    auto [values, error] = resolve(store);
    QCOMPARE(error, QString());
    QCOMPARE(values, (SecretStore::NamedValues{{QStringLiteral("A_TOKEN"), a},
                                               {QStringLiteral("C_TOKEN"), c}}));

    std::optional<QString> changed;
    store.setPassThrough(QStringLiteral("B_TOKEN"), true,
                         [&](const QString& failed) { changed = failed; });
    QTRY_VERIFY(changed.has_value());
    QCOMPARE(*changed, QString());
    std::tie(values, error) = resolve(store);
    QCOMPARE(values.size(), 3);
    QCOMPARE(values.at(1), qMakePair(QStringLiteral("B_TOKEN"), b));
}

void tst_KeychainSecrets::aLaterStoreFindsTheValues()
{
    // As the server does at its next start, after the CLI or the GUI stored them.
    SecretStore store(m_dataDir, SecretStore::BackendChoice::Auto);
    QCOMPARE(open(store), QString());
    QCOMPARE(store.backendKind(), QStringLiteral("keychain"));
    const auto [values, error] = resolve(store);
    QCOMPARE(error, QString());
    QCOMPARE(values.size(), 3);
}

void tst_KeychainSecrets::withoutSecretService_data()
{
    QTest::addColumn<QString>("choice");
    QTest::addColumn<QString>("busAddress"); // empty: none at all
    QTest::addColumn<QString>("expectedKind");
    QTest::newRow("auto, bus address pointing nowhere")
        << QStringLiteral("auto") << QStringLiteral("unix:path=/nonexistent/csm-no-bus")
        << QStringLiteral("file");
    QTest::newRow("auto, no session bus")
        << QStringLiteral("auto") << QString() << QStringLiteral("file");
    QTest::newRow("keychain asked for, bus address pointing nowhere")
        << QStringLiteral("keychain") << QStringLiteral("unix:path=/nonexistent/csm-no-bus")
        << QString();
}

void tst_KeychainSecrets::withoutSecretService()
{
    QFETCH(QString, choice);
    QFETCH(QString, busAddress);
    QFETCH(QString, expectedKind);
    QTemporaryDir dataDir;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QString::fromLatin1(kChildVariable), choice);
    environment.insert(QString::fromLatin1(kChildDataVariable), dataDir.path());
    environment.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("csm.*=true"));
    if (busAddress.isEmpty())
        environment.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    else
        environment.insert(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"), busAddress);
    QProcess child;
    child.setProcessEnvironment(environment);
    child.start(QCoreApplication::applicationFilePath(), {});
    QVERIFY(child.waitForFinished(kWaitMs + 5000));
    const QString out = QString::fromUtf8(child.readAllStandardOutput());
    const QString err = QString::fromUtf8(child.readAllStandardError());
    qInfo().noquote() << out.trimmed();
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
             qPrintable(out + err));

    QVERIFY2(out.contains(QStringLiteral("kind=%1\n").arg(expectedKind)), qPrintable(out));
    if (expectedKind == QStringLiteral("file")) {
        // The choice is visible: in the reason and in the log line.
        QVERIFY2(out.contains(QStringLiteral("reason=no Secret Service")), qPrintable(out));
        QVERIFY2(err.contains(QStringLiteral("values are kept in a private file")),
                 qPrintable(err));
        QVERIFY2(err.contains(dataDir.filePath(QStringLiteral("secrets-values.json"))),
                 qPrintable(err));
    } else {
        QVERIFY2(out.contains(QStringLiteral("error=") + KeychainSecretBackend::noServiceMessage()),
                 qPrintable(out));
    }
}

void tst_KeychainSecrets::serviceWithoutKeyring()
{
    // A session where gnome-keyring is D-Bus-activatable but the user has no keyring yet and no
    // prompt can create one (an SSH session on a fresh account): Auto finds a Secret Service,
    // and storing then says what to do.
    QTemporaryDir home;
    QVERIFY(QDir(home.path()).mkpath(QStringLiteral("runtime")));
    QVERIFY(QFile::setPermissions(home.filePath(QStringLiteral("runtime")),
                                  QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("DBUS_SESSION_BUS_ADDRESS"));
    environment.insert(QStringLiteral("HOME"), home.path());
    environment.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), home.filePath(QStringLiteral("runtime")));
    environment.insert(QString::fromLatin1(kChildVariable), QStringLiteral("auto"));
    environment.insert(QString::fromLatin1(kChildDataVariable),
                       home.filePath(QStringLiteral("csm")));
    // The value goes through the environment, never argv.
    environment.insert(QString::fromLatin1(kChildValueVariable),
                       QString::fromLatin1(newValue("nokeyring")));
    QProcess child;
    child.setProcessEnvironment(environment);
    child.start(QStringLiteral("dbus-run-session"),
                {QStringLiteral("--"), QCoreApplication::applicationFilePath()});
    QVERIFY(child.waitForFinished(kWaitMs + 5000));
    const QString out = QString::fromUtf8(child.readAllStandardOutput());
    qInfo().noquote() << out.trimmed();
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
             qPrintable(out + QString::fromUtf8(child.readAllStandardError())));
    QVERIFY2(out.contains(QStringLiteral("kind=keychain\n")), qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("set-error=the keychain has no default keyring")),
             qPrintable(out));
    QVERIFY2(out.contains(QStringLiteral("--secrets-file")), qPrintable(out));
}

void tst_KeychainSecrets::lockedKeychain()
{
    // Lock the default collection as a screen lock would; no prompt can answer here (no
    // display), just as on a headless server.
    const QByteArray alias = runTool(QStringLiteral("dbus-send"),
                                     {QStringLiteral("--session"), QStringLiteral("--print-reply"),
                                      QStringLiteral("--dest=org.freedesktop.secrets"),
                                      QStringLiteral("/org/freedesktop/secrets"),
                                      QStringLiteral("org.freedesktop.Secret.Service.ReadAlias"),
                                      QStringLiteral("string:default")});
    const qsizetype start = alias.indexOf("object path \"");
    QVERIFY2(start >= 0, alias.constData());
    const QByteArray path = alias.mid(start + 13, alias.indexOf('"', start + 13) - start - 13);
    runTool(QStringLiteral("dbus-send"),
            {QStringLiteral("--session"), QStringLiteral("--print-reply"),
             QStringLiteral("--dest=org.freedesktop.secrets"),
             QStringLiteral("/org/freedesktop/secrets"),
             QStringLiteral("org.freedesktop.Secret.Service.Lock"),
             QStringLiteral("array:objpath:") + QString::fromLatin1(path)});

    SecretStore store(m_dataDir, SecretStore::BackendChoice::Keychain);
    QCOMPARE(open(store), QString());
    const QString written = set(store, QStringLiteral("LOCKED_OUT"), newValue("locked"), true);
    qInfo().noquote() << "set while locked:" << written;
    QVERIFY2(written.startsWith(QStringLiteral("the keychain is locked")), qPrintable(written));
    for (const SecretInfo& info : store.list().valueOr({}))
        QVERIFY(info.name != QStringLiteral("LOCKED_OUT"));
    const auto [value, readError] = read(store, QStringLiteral("A_TOKEN"));
    QVERIFY(value.isEmpty());
    qInfo().noquote() << "read while locked:" << readError;
    QVERIFY2(readError.contains(QStringLiteral("locked")), qPrintable(readError));
    const auto [values, resolveError] = resolve(store);
    QVERIFY(values.isEmpty());
    QVERIFY2(resolveError.contains(QStringLiteral("A_TOKEN: ")), qPrintable(resolveError));
}

void tst_KeychainSecrets::valuesNeverInPlaintext()
{
    QVERIFY(!m_values.isEmpty());
    const auto check = [&](const QString& where, const QByteArray& bytes) {
        for (const QByteArray& value : std::as_const(m_values)) {
            QVERIFY2(!bytes.contains(value), qPrintable(where));
            QVERIFY2(!bytes.contains(value.toBase64()),
                     qPrintable(where + QStringLiteral(" (base64)")));
        }
    };

    // The index, the keyring files and anything else under the temporary HOME.
    QDirIterator files(QDir::homePath(), QDir::Files | QDir::Hidden | QDir::System,
                       QDirIterator::Subdirectories);
    int checked = 0;
    while (files.hasNext()) {
        QFile file(files.next());
        if (!file.fileName().startsWith(QDir::homePath()) || !QFileInfo(file).isFile() ||
            !file.open(QIODevice::ReadOnly))
            continue;
        check(file.fileName(), file.readAll());
        ++checked;
    }
    QVERIFY(QFile::exists(QDir(m_dataDir).filePath(QStringLiteral("secrets.json"))));
    qInfo("%d files under the temporary HOME hold no value", checked);
    QVERIFY2(checked >= 2, "the index and the keyring at least");

    // Every log line (debug included), and this process's whole stderr.
    {
        QMutexLocker locker(&logMutex);
        check(QStringLiteral("the log"), logLines.join(QLatin1Char('\n')).toUtf8());
    }
    std::fflush(stderr);
    QFile captured(m_stderrPath);
    QVERIFY(captured.open(QIODevice::ReadOnly));
    check(QStringLiteral("stderr"), captured.readAll());
}

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    if (qEnvironmentVariableIsSet(kChildVariable))
        return runChild(app);
    tst_KeychainSecrets test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_KeychainSecrets.moc"
