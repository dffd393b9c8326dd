// PassThroughSecrets against real files (the file backend in a temporary data folder): the
// runner holds runs until the secrets are read, gets the server's own variables and the store's
// pass-through secrets, and gets them again when the index changes on disk.
#include "runtime/PodmanRuntime.h"
#include "sandbox/SandboxRunner.h"
#include "server/PassThroughSecrets.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace csm;

namespace {

std::unique_ptr<SandboxRunner> makeRunner()
{
    // No engine and no container: only the runner's secrets are looked at.
    return std::make_unique<SandboxRunner>(
        std::make_unique<PodmanRuntime>(QStringLiteral("/nonexistent/csm-unit-test/podman")),
        SandboxPolicy{},
        SandboxFiles{QStringLiteral("/nonexistent/csm-launch"),
                     QStringLiteral("/nonexistent/csm-seccomp.json"),
                     {}});
}

// Another process's change, as the CLI or the app makes it: its own store on the same folder.
QString storeSecret(const QString& dataDir, const QString& name, const QByteArray& value,
                    bool passThrough)
{
    SecretStore store(dataDir, SecretStore::BackendChoice::File);
    QString result = QStringLiteral("no answer");
    bool answered = false;
    store.open([&](const QString& error) {
        if (!error.isEmpty()) {
            result = error;
            answered = true;
            return;
        }
        store.set(name, value, passThrough, [&](const QString& setError) {
            result = setError;
            answered = true;
        });
    });
    if (!QTest::qWaitFor([&] { return answered; }, 5000))
        return QStringLiteral("no answer in 5 s");
    return result;
}

QString setPassThrough(const QString& dataDir, const QString& name, bool on)
{
    SecretStore store(dataDir, SecretStore::BackendChoice::File);
    QString result = QStringLiteral("no answer");
    bool answered = false;
    store.setPassThrough(name, on, [&](const QString& error) {
        result = error;
        answered = true;
    });
    if (!QTest::qWaitFor([&] { return answered; }, 5000))
        return QStringLiteral("no answer in 5 s");
    return result;
}

QByteArray valueOf(const SandboxRunner& runner, const QString& name)
{
    for (const auto& [variable, value] : runner.secrets()->variables()) {
        if (variable == name)
            return value;
    }
    return {};
}

} // namespace

class tst_PassThroughSecrets final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void environmentOnlyWithoutStore();
    void storedPassThroughSecretsAreResolved();
    void changesOnDiskApplyAndHoldRunsMeanwhile();
    void aDataFolderMadeLaterIsNoticed();
    void environmentWinsOverAStoredSecret();
    void aBrokenIndexPassesNothingAndKeepsServing();
};

void tst_PassThroughSecrets::environmentOnlyWithoutStore()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    qputenv("CSM_TEST_PT_ENV", "env-value-1234");
    auto runner = makeRunner();
    PassThroughSecrets secrets(
        *runner,
        {{QStringLiteral("CSM_TEST_PT_ENV")}, dir.path(), SecretStore::BackendChoice::File});
    QSignalSpy applied(&secrets, &PassThroughSecrets::applied);
    secrets.start();
    QVERIFY(runner->isHeldForSecrets());
    QVERIFY(applied.wait(5000));
    QVERIFY(!runner->isHeldForSecrets());
    QCOMPARE(runner->secrets()->names(), QStringList{QStringLiteral("CSM_TEST_PT_ENV")});
    QCOMPARE(valueOf(*runner, QStringLiteral("CSM_TEST_PT_ENV")), QByteArray("env-value-1234"));
    // No secret stored: no values file was created.
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("secrets-values.json"))));
    qunsetenv("CSM_TEST_PT_ENV");
}

void tst_PassThroughSecrets::storedPassThroughSecretsAreResolved()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QCOMPARE(storeSecret(dir.path(), QStringLiteral("API_TOKEN"), "tok-a1b2c3", true), QString());
    QCOMPARE(storeSecret(dir.path(), QStringLiteral("PRIVATE_ONLY"), "not-for-sandboxes", false),
             QString());
    auto runner = makeRunner();
    PassThroughSecrets secrets(*runner, {{}, dir.path(), SecretStore::BackendChoice::File});
    QSignalSpy applied(&secrets, &PassThroughSecrets::applied);
    secrets.start();
    QVERIFY(applied.wait(5000));
    QCOMPARE(runner->secrets()->names(), QStringList{QStringLiteral("API_TOKEN")});
    QCOMPARE(valueOf(*runner, QStringLiteral("API_TOKEN")), QByteArray("tok-a1b2c3"));
    QCOMPARE(runner->secrets()->redactor().redact(QByteArray("x tok-a1b2c3")),
             QByteArray("x [secret:API_TOKEN]"));
}

void tst_PassThroughSecrets::changesOnDiskApplyAndHoldRunsMeanwhile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto runner = makeRunner();
    PassThroughSecrets secrets(*runner, {{}, dir.path(), SecretStore::BackendChoice::File});
    QSignalSpy applied(&secrets, &PassThroughSecrets::applied);
    secrets.start();
    QVERIFY(applied.wait(5000));
    QVERIFY(runner->secrets()->variables().isEmpty());

    // Set from another store, as `secrets set` does: the runner holds, then gets the value.
    QSignalSpy settled(runner.get(), &SandboxRunner::holdsEnded);
    QCOMPARE(storeSecret(dir.path(), QStringLiteral("API_TOKEN"), "first-value", true), QString());
    QTRY_VERIFY_WITH_TIMEOUT(applied.size() >= 2, 5000);
    QVERIFY(!settled.isEmpty()); // it was held meanwhile
    QCOMPARE(valueOf(*runner, QStringLiteral("API_TOKEN")), QByteArray("first-value"));

    // A new value.
    QCOMPARE(storeSecret(dir.path(), QStringLiteral("API_TOKEN"), "second-value", true), QString());
    QTRY_COMPARE_WITH_TIMEOUT(valueOf(*runner, QStringLiteral("API_TOKEN")),
                              QByteArray("second-value"), 5000);

    // Pass-through turned off: gone from the sandboxes.
    QCOMPARE(setPassThrough(dir.path(), QStringLiteral("API_TOKEN"), false), QString());
    QTRY_VERIFY_WITH_TIMEOUT(runner->secrets()->variables().isEmpty(), 5000);
    QVERIFY(!runner->isHeldForSecrets());
}

void tst_PassThroughSecrets::aDataFolderMadeLaterIsNoticed()
{
    QTemporaryDir parent;
    QVERIFY(parent.isValid());
    const QString dataDir = parent.filePath(QStringLiteral("code-sandbox"));
    auto runner = makeRunner();
    PassThroughSecrets secrets(*runner, {{}, dataDir, SecretStore::BackendChoice::File});
    QSignalSpy applied(&secrets, &PassThroughSecrets::applied);
    secrets.start();
    QVERIFY(applied.wait(5000));
    // Nothing is created in the server's name (--no-history leaves the data folder alone).
    QVERIFY(!QFileInfo::exists(dataDir));

    // The first secret creates the folder; the server notices it and then the index.
    QCOMPARE(storeSecret(dataDir, QStringLiteral("API_TOKEN"), "late-value", true), QString());
    QTRY_COMPARE_WITH_TIMEOUT(valueOf(*runner, QStringLiteral("API_TOKEN")),
                              QByteArray("late-value"), 5000);
}

void tst_PassThroughSecrets::environmentWinsOverAStoredSecret()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QCOMPARE(storeSecret(dir.path(), QStringLiteral("CSM_TEST_PT_BOTH"), "from-store", true),
             QString());
    qputenv("CSM_TEST_PT_BOTH", "from-environment");
    auto runner = makeRunner();
    PassThroughSecrets secrets(
        *runner,
        {{QStringLiteral("CSM_TEST_PT_BOTH")}, dir.path(), SecretStore::BackendChoice::File});
    QSignalSpy applied(&secrets, &PassThroughSecrets::applied);
    secrets.start();
    QVERIFY(applied.wait(5000));
    QCOMPARE(runner->secrets()->names(), QStringList{QStringLiteral("CSM_TEST_PT_BOTH")});
    QCOMPARE(valueOf(*runner, QStringLiteral("CSM_TEST_PT_BOTH")), QByteArray("from-environment"));
    qunsetenv("CSM_TEST_PT_BOTH");
}

void tst_PassThroughSecrets::aBrokenIndexPassesNothingAndKeepsServing()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile index(dir.filePath(QStringLiteral("secrets.json")));
    QVERIFY(index.open(QIODevice::WriteOnly));
    index.write("{ not json");
    index.close();
    auto runner = makeRunner();
    PassThroughSecrets secrets(*runner, {{}, dir.path(), SecretStore::BackendChoice::File});
    QSignalSpy applied(&secrets, &PassThroughSecrets::applied);
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("secrets\\.json")));
    secrets.start();
    QVERIFY(applied.wait(5000));
    QVERIFY(!runner->isHeldForSecrets());
    QVERIFY(runner->secrets()->variables().isEmpty());
}

QTEST_GUILESS_MAIN(tst_PassThroughSecrets)
#include "tst_PassThroughSecrets.moc"
