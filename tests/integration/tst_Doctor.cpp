// `code-sandbox-mcp doctor` against this machine's real engine (CSM_TEST_ENGINE): healthy, then
// with each thing broken in turn, every problem named with its fix.
#include "ServerCli.h"
#include "TestEngine.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

using Result = servercli::Result;

bool has(const QByteArray& text, const QByteArray& part)
{
    return text.contains(part);
}

} // namespace

class tst_Doctor final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void healthy();
    void healthyJson();
    void dataFolderSeveralLevelsDown();
    void missingImage();
    void engineNotOnPath();
    void unknownEngine();
    void unreadableSettingsValue();
    void missingSeccompProfile();
    void slowStorageDriver();
    void brokenSeccompProfile();
    void clientStartsAProgramThatIsGone();

private:
    Result doctor(const QStringList& arguments, const QProcessEnvironment& environment);
    QProcessEnvironment environment() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_dataDir;
};

void tst_Doctor::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_dataDir = m_dir->filePath(QStringLiteral("data"));
}

QProcessEnvironment tst_Doctor::environment() const
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), TestEngine::name());
    environment.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), m_dataDir);
    environment.remove(QStringLiteral("CONTAINER_IMAGE"));
    return environment;
}

Result tst_Doctor::doctor(const QStringList& arguments, const QProcessEnvironment& environment)
{
    // The values file: the test does not depend on a keyring being around.
    return servercli::run(QStringList{QStringLiteral("doctor"), QStringLiteral("--secrets-file")} +
                              arguments,
                          {}, environment, 60'000);
}

void tst_Doctor::healthy()
{
    const Result result = doctor({}, environment());
    QVERIFY2(result.exitCode == 0, QByteArray(result.out + result.err).constData());
    QVERIFY(has(result.out, "All checks passed."));
    QVERIFY(!has(result.out, "problem "));
    const QByteArray engine = TestEngine::name().toUtf8();
    QVERIFY2(has(result.out, "ok       engine            " + engine + " ("),
             result.out.constData());
    QVERIFY(has(result.out,
                TestEngine::localImage(QStringLiteral("code-sandbox-python:latest")).toUtf8()));
    QVERIFY(has(result.out, "csm-launch"));
    QVERIFY2(has(result.out, "ok       seccomp"), result.out.constData());
    // A real sandbox ran, with its limits enforced and its network up.
    QVERIFY2(has(result.out, "ok       sandbox           a Python program ran in "),
             result.out.constData());
    QVERIFY(has(result.out, "limits enforced (512m of memory, 256 processes, 1 CPU)"));
    QVERIFY2(has(result.out, "network through the egress proxy (open; it refused the metadata "
                             "address)"),
             result.out.constData());
    QVERIFY2(has(result.out, "ok       storage           overlay"), result.out.constData());
    QVERIFY(has(result.out, "csm-seccomp.json"));
}

// A first run's data folder whose parents do not exist yet either (a new account's
// ~/.local/share/code-sandbox): it can be created, so all is well.
void tst_Doctor::dataFolderSeveralLevelsDown()
{
    const QString deep = m_dir->filePath(QStringLiteral("new/.local/share/code-sandbox"));
    QProcessEnvironment deeper = environment();
    deeper.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), deep);
    const Result result = doctor({}, deeper);
    QVERIFY2(result.exitCode == 0, QByteArray(result.out + result.err).constData());
    QVERIFY(has(result.out, "ok       data folder"));
}

void tst_Doctor::healthyJson()
{
    const Result result = doctor({QStringLiteral("--json")}, environment());
    QVERIFY2(result.exitCode == 0, QByteArray(result.out + result.err).constData());
    const QJsonObject root = QJsonDocument::fromJson(result.out).object();
    QCOMPARE(root.value(QStringLiteral("ok")), QJsonValue(true));
    QStringList names;
    for (const QJsonValue& check : root.value(QStringLiteral("checks")).toArray()) {
        names << check[QStringLiteral("check")].toString();
        QCOMPARE(check[QStringLiteral("status")].toString(), QStringLiteral("ok"));
    }
    QCOMPARE(names, (QStringList{QStringLiteral("settings"), QStringLiteral("engine"),
                                 QStringLiteral("engine location"), QStringLiteral("image python"),
                                 QStringLiteral("image javascript"), QStringLiteral("storage"),
                                 QStringLiteral("launcher"), QStringLiteral("seccomp"),
                                 QStringLiteral("isolation"), QStringLiteral("sandbox"),
                                 QStringLiteral("secrets"), QStringLiteral("data folder"),
                                 QStringLiteral("clients")}));
}

// An assistant set up (install-client) for a code-sandbox-mcp that has since moved: named with
// the command that sets it up again.
void tst_Doctor::clientStartsAProgramThatIsGone()
{
    const QString home = m_dir->filePath(QStringLiteral("home"));
    QVERIFY(QDir().mkpath(home + QStringLiteral("/.codex")));
    QFile config(home + QStringLiteral("/.codex/config.toml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("model = \"o3\"\n\n[mcp_servers.code-sandbox]\n"
                 "command = \"/gone/bin/code-sandbox-mcp\"\n");
    config.close();
    QProcessEnvironment moved = environment();
    moved.insert(QStringLiteral("HOME"), home);
    moved.remove(QStringLiteral("XDG_CONFIG_HOME"));
    const Result result = doctor({}, moved);
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(has(result.out, "problem  clients           a program that no longer exists: codex (" +
                                 QFile::encodeName(config.fileName()) +
                                 ") starts code-sandbox: /gone/bin/code-sandbox-mcp"),
             result.out.constData());
    QVERIFY2(has(result.out, "fix: code-sandbox-mcp install-client codex"), result.out.constData());
    QVERIFY(has(result.out, "1 problem found."));

    // Set up again where the program is: all is well, and it says where.
    const Result reinstalled =
        servercli::run({QStringLiteral("install-client"), QStringLiteral("codex")}, {}, moved);
    QVERIFY2(reinstalled.exitCode == 0, reinstalled.err.constData());
    const Result healthy = doctor({}, moved);
    QVERIFY2(healthy.exitCode == 0, QByteArray(healthy.out + healthy.err).constData());
    QVERIFY2(has(healthy.out, "ok       clients           set up in codex"),
             healthy.out.constData());
}

void tst_Doctor::missingImage()
{
    const QString image = QStringLiteral("localhost/csm-doctor-no-such-image:none");
    QVERIFY(QDir().mkpath(m_dataDir));
    // Private, as the server makes it: the only problem is the image.
    QVERIFY(QFile::setPermissions(m_dataDir, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                 QFileDevice::ExeOwner));
    QFile settings(QDir(m_dataDir).filePath(QStringLiteral("settings.ini")));
    QVERIFY(settings.open(QIODevice::WriteOnly));
    settings.write("[server]\njs-image=" + image.toUtf8() + "\n");
    settings.close();

    const Result result = doctor({}, environment());
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(has(result.out, "problem  image javascript  image not found: " + image.toUtf8()),
             result.out.constData());
    // An image of this machine's own is in no registry: built, not pulled.
    QVERIFY2(has(result.out, "fix: build " + image.toUtf8() +
                                 " on this machine, or choose another image in Settings"),
             result.out.constData());
    QVERIFY2(!has(result.out, " pull "), result.out.constData());
    QVERIFY(has(result.out, "ok       image python"));
    QVERIFY(has(result.out, "1 problem found."));
}

void tst_Doctor::engineNotOnPath()
{
    QProcessEnvironment stripped = environment();
    stripped.insert(QStringLiteral("PATH"), m_dir->filePath(QStringLiteral("empty-bin")));
    const Result result = doctor({}, stripped);
    QCOMPARE(result.exitCode, 1);
    const QByteArray engine = TestEngine::name().toUtf8();
    QVERIFY2(has(result.out, "problem  engine            " + engine + " not found"),
             result.out.constData());
    const QByteArray package = engine == "docker" ? QByteArray("docker.io") : engine;
    QVERIFY2(has(result.out, "fix: sudo apt-get install " + package), result.out.constData());
    QVERIFY(has(result.out, "skipped  image python"));
}

void tst_Doctor::unknownEngine()
{
    QProcessEnvironment unknown = environment();
    unknown.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), QStringLiteral("rkt"));
    const Result result = doctor({}, unknown);
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(has(result.out, "unknown engine \"rkt\" in $CODE_SANDBOX_ENGINE"),
             result.out.constData());
    QVERIFY(has(result.out, "fix: export CODE_SANDBOX_ENGINE=podman"));
}

void tst_Doctor::unreadableSettingsValue()
{
    QVERIFY(QDir().mkpath(m_dataDir));
    QFile settings(QDir(m_dataDir).filePath(QStringLiteral("settings.ini")));
    QVERIFY(settings.open(QIODevice::WriteOnly));
    settings.write("[server]\nmemory=lots\n");
    settings.close();
    QVERIFY(QFile::setPermissions(m_dataDir, QFile::permissions(m_dataDir) |
                                                 QFileDevice::ReadOther | QFileDevice::ExeOther));

    const Result result = doctor({}, environment());
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(has(result.out, "problem  settings"), result.out.constData());
    QVERIFY(has(result.out, "lots"));
    QVERIFY2(has(result.out, "fix: chmod 700 " + QFile::encodeName(m_dataDir)),
             result.out.constData());
    QVERIFY(has(result.out, "2 problems found."));
}

void tst_Doctor::missingSeccompProfile()
{
    QProcessEnvironment missing = environment();
    missing.insert(QStringLiteral("CODE_SANDBOX_SECCOMP_PROFILE"),
                   m_dir->filePath(QStringLiteral("no-such-profile.json")));
    const Result result = doctor({}, missing);
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(has(result.out, "problem  seccomp           csm-seccomp.json not found"),
             result.out.constData());
    QVERIFY(has(result.out, "no-such-profile.json"));
    QVERIFY(has(result.out, "fix: reinstall Code Sandbox"));
}

void tst_Doctor::brokenSeccompProfile()
{
    QFile profile(m_dir->filePath(QStringLiteral("profile.json")));
    QVERIFY(profile.open(QIODevice::WriteOnly));
    profile.write("{\"defaultAction\": ");
    profile.close();
    QProcessEnvironment broken = environment();
    broken.insert(QStringLiteral("CODE_SANDBOX_SECCOMP_PROFILE"), profile.fileName());
    const Result result = doctor({}, broken);
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(has(result.out, "is not a seccomp profile"), result.out.constData());
}

void tst_Doctor::slowStorageDriver()
{
    if (TestEngine::name() != QLatin1String("podman"))
        QSKIP("Docker's storage driver is its daemon's, shared by every test");
    // A store of its own that uses vfs, as a fresh rootless store does.
    QFile conf(m_dir->filePath(QStringLiteral("storage.conf")));
    QVERIFY(conf.open(QIODevice::WriteOnly));
    conf.write(
        QStringLiteral("[storage]\ndriver = \"vfs\"\ngraphroot = \"%1\"\nrunroot = \"%2\"\n")
            .arg(m_dir->filePath(QStringLiteral("graph")), m_dir->filePath(QStringLiteral("run")))
            .toUtf8());
    conf.close();
    QProcessEnvironment vfs = environment();
    vfs.insert(QStringLiteral("CONTAINERS_STORAGE_CONF"), conf.fileName());
    const Result result = doctor({}, vfs);
    QCOMPARE(result.exitCode, 1);
    QVERIFY2(has(result.out, "problem  storage           podman keeps images with the vfs driver"),
             result.out.constData());
    QVERIFY(has(result.out, "driver = \"overlay\""));
    QVERIFY(has(result.out, "podman system reset"));
}

QTEST_GUILESS_MAIN(tst_Doctor)
#include "tst_Doctor.moc"
