// Folders the user shares with the sandboxes (--share), through the real code-sandbox-mcp binary
// against a real engine (CSM_TEST_ENGINE), cold and pooled: a program reads a shared file, is
// refused writing to a read-only share, writes to a writable one, and cannot reach a host file
// through a symlink that leads out of a share; the tool description lists what is shared; a
// share whose folder was replaced by a link is never mounted.
#include "CallResult.h"
#include "McpStdioClient.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <sys/stat.h>

using callresult::code;
using callresult::describe;
using callresult::printedJson;

namespace {
constexpr int kErrnoEperm = 1;
constexpr int kErrnoEnoent = 2;
constexpr int kErrnoErofs = 30;

const QByteArray kCsv = "region,amount\nnorth,3\nsouth,4\n";
const QByteArray kSecret = "HOST SECRET outside every share";

bool writeFile(const QString& path, const QByteArray& content)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

bool hasSetIdBits(const QString& path)
{
    struct stat status
    {
    };
    return ::stat(QFile::encodeName(path).constData(), &status) == 0 &&
           (status.st_mode & (S_ISUID | S_ISGID)) != 0;
}

// What the sandbox user (uid 65534, "other" on the host) needs: a folder it may enter and read,
// or write too.
bool openUp(const QString& path, bool writable)
{
    QFileDevice::Permissions permissions = QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                           QFileDevice::ExeOwner | QFileDevice::ReadGroup |
                                           QFileDevice::ExeGroup | QFileDevice::ReadOther |
                                           QFileDevice::ExeOther;
    if (writable)
        permissions |= QFileDevice::WriteGroup | QFileDevice::WriteOther;
    return QFile::setPermissions(path, permissions);
}

// Every way the program tries, as one JSON line.
const QString kProbe = QStringLiteral("import json, os\n"
                                      "def read(path):\n"
                                      "    try:\n"
                                      "        with open(path) as f:\n"
                                      "            return f.read()\n"
                                      "    except OSError as error:\n"
                                      "        return error.errno\n"
                                      "def write(path):\n"
                                      "    try:\n"
                                      "        with open(path, 'w') as f:\n"
                                      "            f.write('from the sandbox')\n"
                                      "        return 'written'\n"
                                      "    except OSError as error:\n"
                                      "        return error.errno\n"
                                      "def listing(path):\n"
                                      "    try:\n"
                                      "        return sorted(os.listdir(path))\n"
                                      "    except OSError as error:\n"
                                      "        return error.errno\n"
                                      "def setuid(path):\n"
                                      "    try:\n"
                                      "        open(path, 'w').close()\n"
                                      "        os.chmod(path, 0o4755)\n"
                                      "        return 'set'\n"
                                      "    except OSError as error:\n"
                                      "        return error.errno\n"
                                      "def options(path):\n"
                                      "    found = [l.split()[3] for l in open('/proc/self/mounts')"
                                      " if l.split()[1] == path]\n"
                                      "    return ','.join(sorted(o for o in found[-1].split(',') "
                                      "if o in ('nosuid', 'nodev')))\n"
                                      "print(json.dumps({\n"
                                      "    'csv': read('/data/sales/sales.csv'),\n"
                                      "    'absolute': read('/data/sales/absolute-link'),\n"
                                      "    'relative': read('/data/sales/relative-link'),\n"
                                      "    'folder': listing('/data/sales/folder-link'),\n"
                                      "    'readOnlyWrite': write('/data/sales/new.txt'),\n"
                                      "    'writableWrite': write('/data/results/out.txt'),\n"
                                      "    'setuidInShare': setuid('/data/results/setuid'),\n"
                                      "    'shareOptions': options('/data/results'),\n"
                                      "}))\n");
} // namespace

class tst_SharedFolders final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_host;

    QString hostPath(const QString& name) const { return m_host.filePath(name); }

    std::unique_ptr<McpStdioClient> startServer(int poolSize, const QStringList& arguments = {})
    {
        return McpStdioClient::startOnTestEngine(
            TestEngine::serverArguments() +
            QStringList{QStringLiteral("--verbose"), QStringLiteral("--pool"),
                        QString::number(poolSize)} +
            (arguments.isEmpty() ? sharesArguments() : arguments));
    }

    QStringList sharesArguments() const
    {
        return {QStringLiteral("--share"), hostPath(QStringLiteral("sales")),
                QStringLiteral("--share"),
                hostPath(QStringLiteral("out")) + QStringLiteral(":results:rw")};
    }

    static QString pythonDescription(McpStdioClient& server)
    {
        return callresult::toolDescription(server.request(QStringLiteral("tools/list")));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_host.isValid());
        QVERIFY(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")));
        // host/secret.txt and host/private/secret.txt are outside every share, readable by
        // anyone on the host: only the mount can keep a program from them.
        QVERIFY(openUp(m_host.path(), false));
        QVERIFY(writeFile(hostPath(QStringLiteral("secret.txt")), kSecret));
        QVERIFY(QDir(m_host.path()).mkdir(QStringLiteral("private")));
        QVERIFY(openUp(hostPath(QStringLiteral("private")), false));
        QVERIFY(writeFile(hostPath(QStringLiteral("private/secret.txt")), kSecret));
        // host/sales: shared read-only, with three ways out: absolute and relative symlinks to
        // the secret file, and one to the private folder.
        // Writable by anyone on the host: only the read-only mount refuses a write.
        QVERIFY(QDir(m_host.path()).mkdir(QStringLiteral("sales")));
        QVERIFY(openUp(hostPath(QStringLiteral("sales")), true));
        QVERIFY(writeFile(hostPath(QStringLiteral("sales/sales.csv")), kCsv));
        QVERIFY(QFile::link(hostPath(QStringLiteral("secret.txt")),
                            hostPath(QStringLiteral("sales/absolute-link"))));
        QVERIFY(QFile::link(QStringLiteral("../secret.txt"),
                            hostPath(QStringLiteral("sales/relative-link"))));
        QVERIFY(QFile::link(hostPath(QStringLiteral("private")),
                            hostPath(QStringLiteral("sales/folder-link"))));
        // On the host, the links do lead to the secret: the sandbox is what stops them.
        QFile viaLink(hostPath(QStringLiteral("sales/relative-link")));
        QVERIFY(viaLink.open(QIODevice::ReadOnly));
        QCOMPARE(viaLink.readAll(), kSecret);
        // host/out: shared writable, as /data/results.
        QVERIFY(QDir(m_host.path()).mkdir(QStringLiteral("out")));
        QVERIFY(openUp(hostPath(QStringLiteral("out")), true));
    }

    void toolDescriptionListsTheShares()
    {
        auto server = startServer(0);
        QVERIFY(server);
        const QJsonArray tools =
            server->request(QStringLiteral("tools/list")).value(QLatin1String("tools")).toArray();
        QCOMPARE(tools.size(), 4); // the two run tools, then list_sessions and end_session
        for (qsizetype i = 0; i < 2; ++i) {
            const QString description =
                tools.at(i).toObject().value(QLatin1String("description")).toString();
            QVERIFY2(description.contains(QLatin1String(
                         "Folders shared by the user: /data/sales (read-only), /data/results "
                         "(writable)")),
                     qPrintable(description));
            QVERIFY2(!description.contains(m_host.path()), qPrintable(description));
        }
    }

    void programsUseTheSharesAndNothingBeyond_data()
    {
        QTest::addColumn<int>("poolSize");
        QTest::newRow("cold") << 0;
        QTest::newRow("pooled") << 1;
    }

    void programsUseTheSharesAndNothingBeyond()
    {
        QFETCH(int, poolSize);
        QFile::remove(hostPath(QStringLiteral("out/out.txt")));
        QFile::remove(hostPath(QStringLiteral("out/setuid")));
        auto server = startServer(poolSize);
        QVERIFY(server);
        if (poolSize > 0)
            QVERIFY2(server->waitForPooledReady(2), qPrintable(server->standardError()));
        const QJsonObject result =
            server->callTool(QStringLiteral("run_python_code"), code(kProbe));
        const QJsonObject seen = printedJson(result);
        QVERIFY2(!seen.isEmpty(), describe(result).constData());
        // The shared file, read where it lies.
        QCOMPARE(seen.value(QLatin1String("csv")).toString(), QString::fromUtf8(kCsv));
        // A symlink out of the share resolves inside the container, where there is no such file.
        QCOMPARE(seen.value(QLatin1String("absolute")).toInt(), kErrnoEnoent);
        QCOMPARE(seen.value(QLatin1String("relative")).toInt(), kErrnoEnoent);
        QCOMPARE(seen.value(QLatin1String("folder")).toInt(), kErrnoEnoent);
        // Read-only unless the user said otherwise; the program sees why.
        QCOMPARE(seen.value(QLatin1String("readOnlyWrite")).toInt(), kErrnoErofs);
        QVERIFY(!QFile::exists(hostPath(QStringLiteral("sales/new.txt"))));
        QCOMPARE(seen.value(QLatin1String("writableWrite")).toString(), QStringLiteral("written"));
        QFile written(hostPath(QStringLiteral("out/out.txt")));
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll(), QByteArray("from the sandbox"));
        // A set-id file left in a writable share would run on the host as the uid every sandbox
        // shares: the bits are refused, and the host's file has none.
        QCOMPARE(seen.value(QLatin1String("setuidInShare")).toInt(), kErrnoEperm);
        QVERIFY(QFile::exists(hostPath(QStringLiteral("out/setuid"))));
        QVERIFY(!hasSetIdBits(hostPath(QStringLiteral("out/setuid"))));
        // Podman also mounts shares nosuid,nodev; Docker's --mount cannot.
        QCOMPARE(seen.value(QLatin1String("shareOptions")).toString(),
                 TestEngine::name() == QLatin1String("docker") ? QString()
                                                               : QStringLiteral("nodev,nosuid"));
        if (poolSize > 0)
            QCOMPARE(server->standardError().count(QStringLiteral("(warm)")), 1);
    }

    // What the desktop app's Settings page saves reaches a running server: its next call, even
    // one in a container the pool started before the change, sees the share.
    void aShareSavedInTheSettingsReachesARunningServer()
    {
        QTemporaryDir data;
        auto server = startServer(1, {QStringLiteral("--data-dir"), data.path()});
        QVERIFY(server);
        QVERIFY2(server->waitForPooledReady(2), qPrintable(server->standardError()));
        QVERIFY(!pythonDescription(*server).contains(QLatin1String("/data/")));
        {
            QSettings file(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            file.setValue(QStringLiteral("server/share"),
                          QString(hostPath(QStringLiteral("sales")) + QStringLiteral(":sales:ro")));
        }
        QTRY_VERIFY_WITH_TIMEOUT(pythonDescription(*server).contains(QLatin1String(
                                     "Folders shared by the user: /data/sales (read-only)")),
                                 5000);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("print(open('/data/sales/sales.csv').read(), end='')")));
        QCOMPARE(callresult::stdoutOf(result), QString::fromUtf8(kCsv));
    }

    void aShareReplacedOnTheHostIsNeverMounted_data()
    {
        QTest::addColumn<int>("poolSize");
        QTest::newRow("cold") << 0;
        QTest::newRow("pooled") << 1;
    }

    // The engine resolves a share's path again at every start: once the folder has been renamed
    // away and a link to another folder put in its place, no sandbox may start with the link's
    // target mounted. (A sandbox cannot do this itself: a share inside a writable one is
    // refused, see tst_ServerOptionsParser; another account or program on the host could.)
    void aShareReplacedOnTheHostIsNeverMounted()
    {
        QFETCH(int, poolSize);
        const QString parent = hostPath(QStringLiteral("replaced-%1").arg(poolSize));
        const QString shared = parent + QStringLiteral("/data");
        QVERIFY(QDir().mkpath(shared));
        QVERIFY(openUp(parent, false));
        QVERIFY(openUp(shared, false));
        QVERIFY(writeFile(shared + QStringLiteral("/inside.txt"), "shared"));
        QTemporaryDir data;
        QVERIFY(data.isValid());
        auto server =
            startServer(poolSize, {QStringLiteral("--data-dir"), data.path(),
                                   QStringLiteral("--share"), shared + QStringLiteral(":data:ro")});
        QVERIFY(server);
        if (poolSize > 0)
            QVERIFY2(server->waitForPooledReady(2), qPrintable(server->standardError()));
        const QJsonObject listing = code(QStringLiteral("import os\nprint(sorted(os.listdir("
                                                        "'/data/data')))"));
        const QJsonObject before = server->callTool(QStringLiteral("run_python_code"), listing);
        QCOMPARE(callresult::stdoutOf(before), QStringLiteral("['inside.txt']\n"));

        QVERIFY(QDir().rename(shared, shared + QStringLiteral(".orig")));
        QVERIFY(QFile::link(hostPath(QStringLiteral("private")), shared));
        // A container the pool started before the change has the folder itself: it may serve one
        // more call. No container starts with the link's target.
        bool refused = false;
        for (int call = 0; call < 3 && !refused; ++call) {
            const QJsonObject after = server->callTool(QStringLiteral("run_python_code"), listing);
            QVERIFY2(!callresult::stdoutOf(after).contains(QLatin1String("secret.txt")),
                     describe(after).constData());
            refused = callresult::isError(after);
            if (refused) {
                QVERIFY2(callresult::text(after).contains(
                             QLatin1String("The shared folder /data/data is not the folder it was "
                                           "when it was shared (") +
                             shared + QLatin1String(" is now a symbolic link)")),
                         describe(after).constData());
            } else {
                QCOMPARE(callresult::stdoutOf(after), QStringLiteral("['inside.txt']\n"));
                QVERIFY(poolSize > 0);
            }
        }
        QVERIFY(refused);
        QVERIFY(server->standardError().contains(QLatin1String("changed since it was shared")));
        // A session's container is checked as it starts too: its first cell hears why, and
        // lists nothing.
        QJsonObject inSession = listing;
        inSession.insert(QStringLiteral("session"), QStringLiteral("s"));
        const QJsonObject session = server->callTool(QStringLiteral("run_python_code"), inSession);
        QVERIFY2(callresult::isError(session) &&
                     callresult::text(session).contains(
                         QLatin1String("The shared folder /data/data is not the folder it was")) &&
                     !callresult::stdoutOf(session).contains(QLatin1String("secret.txt")),
                 describe(session).constData());
        // It never lived: no live session is listed, and the next call hears the same.
        QVERIFY(callresult::text(server->callTool(QStringLiteral("list_sessions"), {}))
                    .contains(QLatin1String("No live sessions")));
        const QJsonObject again = server->callTool(QStringLiteral("run_python_code"), inSession);
        QVERIFY2(callresult::isError(again) &&
                     callresult::text(again).contains(
                         QLatin1String("The shared folder /data/data is not the folder it was")),
                 describe(again).constData());

        // Any change of the settings makes the server read the share's path again, which now
        // leads through the link: the share stays refused all the same.
        {
            QSettings file(data.filePath(QStringLiteral("settings.ini")), QSettings::IniFormat);
            file.setValue(QStringLiteral("server/memory"), QStringLiteral("256m"));
        }
        QTRY_VERIFY_WITH_TIMEOUT(
            server->standardError().contains(QLatin1String("it stays refused")), 10'000);
        const QJsonObject reloaded = server->callTool(QStringLiteral("run_python_code"), listing);
        QVERIFY2(callresult::isError(reloaded) &&
                     !callresult::stdoutOf(reloaded).contains(QLatin1String("secret.txt")),
                 describe(reloaded).constData());
    }
};

QTEST_GUILESS_MAIN(tst_SharedFolders)
#include "tst_SharedFolders.moc"
