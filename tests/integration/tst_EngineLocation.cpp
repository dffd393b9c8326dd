// Whether an engine's containers see this machine's files is asked of the engine, not read from
// the shape of its address (issue 33). A real Podman service on a Unix socket, started here in
// two ways: as it is (it sees this machine's files: the local way, bind mounts), and in a mount
// namespace of its own with a private /tmp, as a socket that leads into a VM (Rancher Desktop,
// Colima) or another namespace: the probe finds that it does not, and the server takes the
// remote way (the engine's volumes and streams), where taking it for local would fail every call
// on a mount of a file that is not there (--engine-location local shows that). doctor says what
// was found and how; the answer is remembered per engine and address, in the cache folder.
#include "CallResult.h"
#include "McpStdioClient.h"
#include "ServerCli.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>
#include <signal.h>
#include <unistd.h>

using callresult::code;
using callresult::describe;
using callresult::isError;
using callresult::stdoutOf;
using callresult::text;

class tst_EngineLocation final : public QObject
{
    Q_OBJECT

private:
    // Outside /tmp: the socket must be where both namespaces see it.
    QTemporaryDir m_state{QStringLiteral("/var/tmp/csm-engine-location-XXXXXX")};
    QProcess m_service;
    int m_caches = 0;

    QString socket() const { return m_state.filePath(QStringLiteral("podman.sock")); }
    QString url() const { return QStringLiteral("unix://") + socket(); }

    // A Podman service on socket(), with /tmp of its own when `privateTmp`.
    bool startService(bool privateTmp)
    {
        stopService();
        const QString serve = QStringLiteral("exec podman system service --time=0 %1").arg(url());
        if (privateTmp) {
            m_service.start(QStringLiteral("unshare"),
                            {QStringLiteral("--mount"), QStringLiteral("--propagation"),
                             QStringLiteral("private"), QStringLiteral("sh"), QStringLiteral("-c"),
                             QStringLiteral("mount -t tmpfs csm-private-tmp /tmp && ") + serve});
        } else {
            m_service.start(QStringLiteral("sh"), {QStringLiteral("-c"), serve});
        }
        if (!m_service.waitForStarted(10'000))
            return false;
        QDeadlineTimer deadline(30'000);
        while (!deadline.hasExpired()) {
            QProcess version;
            version.start(QStringLiteral("podman"),
                          {QStringLiteral("--url"), url(), QStringLiteral("version")});
            if (version.waitForFinished(10'000) && version.exitCode() == 0)
                return true;
            QTest::qWait(200);
        }
        qWarning() << m_service.readAllStandardError();
        return false;
    }

    void stopService()
    {
        if (m_service.state() == QProcess::NotRunning)
            return;
        m_service.terminate();
        if (!m_service.waitForFinished(20'000)) {
            m_service.kill();
            m_service.waitForFinished(5'000);
        }
        QFile::remove(socket());
    }

    // The engine at url(), and a cache folder no server has used yet (each call).
    QProcessEnvironment environment(const QString& cache)
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("CODE_SANDBOX_ENGINE"), QStringLiteral("podman"));
        environment.insert(QStringLiteral("CONTAINER_HOST"), url());
        environment.insert(QStringLiteral("XDG_CACHE_HOME"), cache);
        environment.remove(QStringLiteral("CODE_SANDBOX_ENGINE_LOCATION"));
        environment.remove(QStringLiteral("CONTAINER_IMAGE"));
        return environment;
    }

    QString newCache() { return m_state.filePath(QStringLiteral("cache-%1").arg(++m_caches)); }

    std::unique_ptr<McpStdioClient> startServer(const QString& cache,
                                                const QStringList& arguments = {})
    {
        auto server = std::make_unique<McpStdioClient>();
        if (!server->start(
                QStringList{QStringLiteral("--verbose"), QStringLiteral("--no-history")} +
                    arguments,
                environment(cache)) ||
            server->initialize().isEmpty())
            return nullptr;
        return server;
    }

    // Whether a call of `server` runs and prints what it should.
    static bool answers(McpStdioClient& server)
    {
        const QJsonObject result = server.callTool(QStringLiteral("run_python_code"),
                                                   code(QStringLiteral("print(6 * 7)")));
        if (!isError(result) && stdoutOf(result) == QLatin1String("42\n"))
            return true;
        qWarning().noquote() << describe(result);
        return false;
    }

    // What `cache` holds about the engine at url() (its key adds this process's temporary
    // folder and mount namespace, which the server shares).
    QJsonObject remembered(const QString& cache) const
    {
        QFile file(QDir(cache).filePath(QStringLiteral("code-sandbox/engine-locations.json")));
        if (!file.open(QIODevice::ReadOnly))
            return {};
        const QJsonObject all = QJsonDocument::fromJson(file.readAll()).object();
        for (auto it = all.begin(); it != all.end(); ++it) {
            if (it.key().startsWith(QStringLiteral("podman %1 ").arg(url())))
                return it.value().toObject();
        }
        return {};
    }

    QJsonObject doctorsLocation(const QString& cache)
    {
        QTemporaryDir data;
        QProcessEnvironment env = environment(cache);
        env.insert(QStringLiteral("CODE_SANDBOX_DATA_DIR"), data.path());
        const servercli::Result result = servercli::run(
            {QStringLiteral("doctor"), QStringLiteral("--secrets-file"), QStringLiteral("--json")},
            {}, env, 120'000);
        for (const QJsonValue& check : QJsonDocument::fromJson(result.out)
                                           .object()
                                           .value(QLatin1String("checks"))
                                           .toArray()) {
            if (check[QLatin1String("check")].toString() == QLatin1String("engine location"))
                return check.toObject();
        }
        qWarning().noquote() << result.out << result.err;
        return {};
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (::geteuid() != 0)
            QSKIP("a mount namespace and root's Podman service need root");
        QVERIFY(m_state.isValid());
    }

    void cleanupTestCase() { stopService(); }

    void anEngineThatSeesThisMachinesFilesIsLocal()
    {
        QVERIFY(startService(false));
        const QString cache = newCache();
        const QStringList quick{QStringLiteral("--pool"), QStringLiteral("0"),
                                QStringLiteral("--egress"), QStringLiteral("none")};
        auto server = startServer(cache, quick);
        QVERIFY(server);
        QVERIFY(answers(*server));
        QVERIFY2(server->standardError().contains(
                     QLatin1String("podman engine: this machine - a container read a file this "
                                   "machine had just made")),
                 qPrintable(server->standardError()));
        // Remembered: the next server asks nothing, and says where its answer came from.
        const QJsonObject entry = remembered(cache);
        QCOMPARE(entry.value(QLatin1String("remote")), QJsonValue(false));
        server.reset();
        auto next = startServer(cache, quick);
        QVERIFY(next);
        QVERIFY(answers(*next));
        QVERIFY2(!next->standardError().contains(QLatin1String("podman engine:")),
                 qPrintable(next->standardError()));
        // Not asked again: the answer is the first one's.
        QCOMPARE(remembered(cache).value(QLatin1String("asked")),
                 entry.value(QLatin1String("asked")));
    }

    // Asking takes a container, and a client may give its server about a second to start
    // (Codex then runs the first turn without the server's tools): the server answers while the
    // engine is asked, and a call waits for the answer. Here the engine stops answering until the
    // client has been answered; by its address (a service's socket) it would be remote, and the
    // probe finds that it sees this machine's files: a call that did not wait would have taken
    // the remote way (the launcher from a volume of the engine's, /.code-sandbox/files).
    void clientsAreAnsweredWhileTheEngineIsAsked()
    {
        QVERIFY(startService(false));
        const auto service = pid_t(m_service.processId());
        QCOMPARE(::kill(service, SIGSTOP), 0);
        auto resume = qScopeGuard([service] { ::kill(service, SIGCONT); });
        auto server = startServer(newCache(), {QStringLiteral("--pool"), QStringLiteral("0")});
        QVERIFY(server);
        const QJsonArray tools =
            server->request(QStringLiteral("tools/list")).value(QLatin1String("tools")).toArray();
        QVERIFY2(!tools.isEmpty() && tools.first()[QLatin1String("name")].toString() ==
                                         QLatin1String("run_python_code"),
                 QJsonDocument(tools).toJson().constData());
        QVERIFY2(!server->standardError().contains(QLatin1String("podman engine:")),
                 qPrintable(server->standardError()));
        const int call = server->sendRequest(
            QStringLiteral("tools/call"),
            {{QStringLiteral("name"), QStringLiteral("run_python_code")},
             {QStringLiteral("arguments"),
              code(QStringLiteral("import os\nprint(os.path.exists('/.code-sandbox/launch'), "
                                  "os.path.exists('/.code-sandbox/files'))"))}});
        QTest::qWait(1'000);
        resume.dismiss();
        QCOMPARE(::kill(service, SIGCONT), 0);
        const std::optional<QJsonObject> response = server->waitForResponse(call, 120'000);
        QVERIFY(response);
        const QJsonObject result = response->value(QLatin1String("result")).toObject();
        QVERIFY2(!isError(result) && stdoutOf(result) == QLatin1String("True False\n"),
                 describe(result).constData());
        QVERIFY2(server->standardError().contains(
                     QLatin1String("podman engine: this machine - a container read a file")),
                 qPrintable(server->standardError()));
    }

    void anEngineThatDoesNotSeeThemIsRemote()
    {
        QVERIFY(startService(true));
        // Taken for local (as its address alone once made it), every call fails on a mount
        // (its egress folder, in this machine's /tmp). The servers here are as a user has them:
        // a pool, the egress proxy.
        {
            auto told = startServer(newCache(),
                                    {QStringLiteral("--engine-location"), QStringLiteral("local")});
            QVERIFY(told);
            const QJsonObject failed = told->callTool(QStringLiteral("run_python_code"),
                                                      code(QStringLiteral("print(6 * 7)")));
            QVERIFY2(isError(failed) &&
                         text(failed).contains(QLatin1String("no such file"), Qt::CaseInsensitive),
                     describe(failed).constData());
        }
        const QString cache = newCache();
        auto server = startServer(cache);
        QVERIFY(server);
        QVERIFY(answers(*server));
        QVERIFY2(server->standardError().contains(
                     QLatin1String("podman engine: remote - a container could not mount a file "
                                   "of this machine")),
                 qPrintable(server->standardError()));
        QCOMPARE(remembered(cache).value(QLatin1String("remote")), QJsonValue(true));
        server.reset();
        // doctor asks again, and says what it found and how.
        const QJsonObject location = doctorsLocation(newCache());
        const QString detail = location.value(QLatin1String("detail")).toString();
        QVERIFY2(detail.startsWith(QStringLiteral("remote (%1) (a container could not mount a file "
                                                  "of this machine")
                                       .arg(url())),
                 qPrintable(detail));
    }
};

QTEST_GUILESS_MAIN(tst_EngineLocation)
#include "tst_EngineLocation.moc"
