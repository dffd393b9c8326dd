// Egress control (issue 18) through the real code-sandbox-mcp binary against a real engine
// (CSM_TEST_ENGINE), cold and pooled. The upstream is a real HTTP server this test starts on the
// host's loopback at 127.0.0.2 (LoopbackHttpServer), named in --allow-host: never an outside
// address. Python's requests and urllib and Node's fetch reach
// it through the proxy without code changes; what the policy refuses (another loopback address,
// the metadata address, a name that resolves to this machine) is refused with its reason, in the
// result text and in the history's connection records; a program that ignores the proxy finds no
// network at all; --egress none gives none, --egress allowlist only the listed hosts. This
// machine's own services answer at host.containers.internal, alike for every program.
#include "CallResult.h"
#include "history/HistoryStore.h"
#include "LoopbackHttpServer.h"
#include "McpStdioClient.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using callresult::code;
using callresult::describe;
using callresult::isError;
using callresult::printedJson;
using callresult::stdoutOf;
using callresult::text;
using csm::HistoryQuery;
using csm::HistoryStore;
using csm::RunRecord;

namespace {
const QString kUpstreamAddress = QStringLiteral("127.0.0.2");
const QByteArray kPage = LoopbackHttpServer::kPage;
} // namespace

class tst_Egress final : public QObject
{
    Q_OBJECT

private:
    LoopbackHttpServer m_upstream;
    QTemporaryDir m_data;

    std::unique_ptr<McpStdioClient> startServer(int poolSize, const QStringList& arguments)
    {
        auto server = McpStdioClient::startOnTestEngine(
            TestEngine::serverArguments() +
            QStringList{QStringLiteral("--verbose"), QStringLiteral("--pool"),
                        QString::number(poolSize), QStringLiteral("--data-dir"), m_data.path()} +
            arguments);
        // Pooled: the containers the calls get were started before any call, with the
        // endpoint already listening.
        if (server && poolSize > 0 && !server->waitForPooledReady(1))
            return nullptr;
        return server;
    }

    std::unique_ptr<McpStdioClient> startAllowingUpstream(int poolSize)
    {
        return startServer(poolSize, {QStringLiteral("--allow-host"), m_upstream.hostPort()});
    }

    std::unique_ptr<HistoryStore> history()
    {
        auto opened = HistoryStore::open(m_data.filePath(QStringLiteral("history.sqlite")));
        if (!opened) {
            qWarning().noquote() << opened.error();
            return nullptr;
        }
        return *std::move(opened);
    }

    // The newest run's record, its connections included.
    std::optional<RunRecord> latestRun()
    {
        auto store = history();
        if (!store)
            return std::nullopt;
        HistoryQuery query;
        query.limit = 1;
        const QList<RunRecord> runs = store->queries().list(query).valueOr({});
        if (runs.isEmpty())
            return std::nullopt;
        csm::Expected<RunRecord> run = store->queries().get(runs.constFirst().id);
        return run ? std::optional<RunRecord>(*std::move(run)) : std::nullopt;
    }

    static void addColdAndPooled()
    {
        QTest::addColumn<int>("poolSize");
        QTest::newRow("cold") << 0;
        QTest::newRow("pooled") << 1;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_data.isValid());
        // Rootless: the server runs as the rootless account, and writes its history here.
        TestEngine::handOver(m_data.path());
        QVERIFY2(m_upstream.start(), qPrintable(m_upstream.log()));
    }

    void requestsAndUrllibReachAnAllowedHost_data() { addColdAndPooled(); }
    void requestsAndUrllibReachAnAllowedHost()
    {
        QFETCH(int, poolSize);
        auto server = startAllowingUpstream(poolSize);
        QVERIFY(server);
        const QString url = QStringLiteral("http://%1/hello.txt").arg(m_upstream.hostPort());
        const int servedBefore = m_upstream.pagesServed(0);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import json, os, requests, urllib.request\n"
                                "print(json.dumps({\n"
                                "  'requests': requests.get('%1', timeout=20).text,\n"
                                "  'urllib': urllib.request.urlopen('%1', timeout=20).read()"
                                ".decode(),\n"
                                "  'proxy': os.environ.get('HTTP_PROXY'),\n"
                                "}))\n")
                     .arg(url)),
            120'000);
        QVERIFY2(!isError(result), describe(result).constData());
        const QJsonObject printed = printedJson(result);
        QCOMPARE(printed.value(QLatin1String("requests")).toString(), QString::fromUtf8(kPage));
        QCOMPARE(printed.value(QLatin1String("urllib")).toString(), QString::fromUtf8(kPage));
        QCOMPARE(printed.value(QLatin1String("proxy")).toString(),
                 QStringLiteral("http://127.0.0.1:3128"));
        QVERIFY2(m_upstream.pagesServed(servedBefore + 2) == servedBefore + 2,
                 qPrintable(m_upstream.log()));

        // Both connections are on record with the run: where, allowed, and what they carried.
        const auto run = latestRun();
        QVERIFY(run);
        QCOMPARE(run->connections.size(), 2);
        for (const auto& connection : run->connections) {
            QCOMPARE(connection.host, kUpstreamAddress);
            QCOMPARE(connection.port, m_upstream.port());
            QVERIFY2(connection.allowed, qPrintable(connection.reason));
            QCOMPARE(connection.address, kUpstreamAddress);
            QVERIFY(connection.bytesSent > 0);
            QVERIFY(connection.bytesReceived > kPage.size());
        }
    }

    void nodeFetchReachesAnAllowedHost_data() { addColdAndPooled(); }
    void nodeFetchReachesAnAllowedHost()
    {
        QFETCH(int, poolSize);
        auto server = startAllowingUpstream(poolSize);
        QVERIFY(server);
        // Node 18's fetch ignores HTTP_PROXY: the preload routes it through the proxy.
        const int servedBefore = m_upstream.pagesServed(0);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_js_code"),
            code(QStringLiteral("(async () => {\n"
                                "const r = await fetch('http://%1/hello.txt');\n"
                                "console.log(JSON.stringify({status: r.status, body: await "
                                "r.text()}));\n"
                                "try { await fetch('http://169.254.169.254/latest/meta-data/'); "
                                "console.log('metadata reached'); }\n"
                                "catch (e) { console.log(JSON.stringify({refused: "
                                "String(e.cause && e.cause.message)})); }\n"
                                "})();\n")
                     .arg(m_upstream.hostPort())),
            120'000);
        const QStringList lines = stdoutOf(result).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY2(lines.size() == 2, describe(result).constData());
        const QJsonObject fetched = QJsonDocument::fromJson(lines.at(0).toUtf8()).object();
        QCOMPARE(fetched.value(QLatin1String("status")).toInt(), 200);
        QCOMPARE(fetched.value(QLatin1String("body")).toString(), QString::fromUtf8(kPage));
        const QString refused = QJsonDocument::fromJson(lines.at(1).toUtf8())
                                    .object()
                                    .value(QLatin1String("refused"))
                                    .toString();
        // The proxy's reason reaches the program's own error.
        QVERIFY2(refused.contains(QLatin1String("link-local")), qPrintable(refused));
        QCOMPARE(m_upstream.pagesServed(servedBefore + 1), servedBefore + 1);
    }

    void refusedHostsAreExplained_data() { addColdAndPooled(); }
    void refusedHostsAreExplained()
    {
        QFETCH(int, poolSize);
        auto server = startAllowingUpstream(poolSize);
        QVERIFY(server);
        // Another loopback port than the one allowed, the metadata service, and a name that
        // resolves to this machine (localhost: the program overrides NO_PROXY to ask for it).
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import json, requests\n"
                                "proxies = {'http': 'http://127.0.0.1:3128'}\n"
                                "def get(url):\n"
                                "    r = requests.get(url, proxies=proxies, timeout=20)\n"
                                "    return [r.status_code, r.text.strip()]\n"
                                "print(json.dumps({\n"
                                "  'otherPort': get('http://%1:%2/hello.txt'),\n"
                                "  'metadata': get('http://169.254.169.254/latest/meta-data/'),\n"
                                "  'localhost': get('http://localhost:%3/hello.txt'),\n"
                                "}))\n")
                     .arg(kUpstreamAddress)
                     .arg(m_upstream.port() == 1 ? 2 : m_upstream.port() - 1)
                     .arg(m_upstream.port())),
            120'000);
        const QJsonObject printed = printedJson(result);
        for (const QString& key : {QStringLiteral("otherPort"), QStringLiteral("metadata"),
                                   QStringLiteral("localhost")}) {
            const QJsonArray answer = printed.value(key).toArray();
            QVERIFY2(answer.size() == 2, describe(result).constData());
            QCOMPARE(answer.at(0).toInt(), 403);
            QVERIFY2(answer.at(1).toString().startsWith(QLatin1String("Code Sandbox egress:")),
                     qPrintable(answer.at(1).toString()));
        }
        QVERIFY2(printed.value(QLatin1String("metadata"))
                     .toArray()
                     .at(1)
                     .toString()
                     .contains(QLatin1String("link-local")),
                 describe(result).constData());
        // The model reads why, so that it stops retrying.
        const QString said = text(result);
        QVERIFY2(said.contains(QLatin1String("[network: the sandbox's egress proxy refused 3 "
                                             "connections")),
                 qPrintable(said));
        QVERIFY2(said.contains(QLatin1String("169.254.169.254:80")), qPrintable(said));
        const auto run = latestRun();
        QVERIFY(run);
        QCOMPARE(run->connections.size(), 3);
        for (const auto& connection : run->connections) {
            QVERIFY(!connection.allowed);
            QVERIFY(!connection.reason.isEmpty());
            QVERIFY(connection.address.isEmpty()); // no connection was made
        }
    }

    // A service on this machine's 127.0.0.1 answers at host.containers.internal (and its
    // alias) once a rule names it, alike for urllib, requests and Node's fetch; the sandbox's
    // own 127.0.0.1 and localhost stay in the sandbox for all of them (fetch included: the
    // preload honours NO_PROXY), where nothing listens.
    void thisMachinesServicesAnswerAtOneNameForEveryProgram()
    {
        LoopbackHttpServer service;
        QVERIFY2(service.start(QStringLiteral("127.0.0.1")), qPrintable(service.log()));
        const QString port = QString::number(service.port());
        auto server = startServer(0, {QStringLiteral("--egress"), QStringLiteral("allowlist"),
                                      QStringLiteral("--allow-host"),
                                      QStringLiteral("host.containers.internal:") + port});
        QVERIFY(server);
        const QJsonObject python = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral(
                     "import json, requests, urllib.request\n"
                     "def attempt(get):\n"
                     "    try:\n"
                     "        return get()\n"
                     "    except Exception as error:\n"
                     "        return 'error: ' + type(error).__name__\n"
                     "page = '/hello.txt'\n"
                     "print(json.dumps({\n"
                     "  'urllib': attempt(lambda: urllib.request.urlopen("
                     "'http://host.containers.internal:%1' + page, timeout=20).read().decode()),\n"
                     "  'requests': attempt(lambda: requests.get("
                     "'http://host.docker.internal:%1' + page, timeout=20).text),\n"
                     "  'urllibLoopback': attempt(lambda: urllib.request.urlopen("
                     "'http://127.0.0.1:%1' + page, timeout=5).read().decode()),\n"
                     "  'requestsLoopback': attempt(lambda: requests.get("
                     "'http://localhost:%1' + page, timeout=5).text),\n"
                     "}))\n")
                     .arg(port)),
            120'000);
        const QJsonObject printed = printedJson(python);
        QVERIFY2(!printed.isEmpty(), describe(python).constData());
        QCOMPARE(printed.value(QLatin1String("urllib")).toString(), QString::fromUtf8(kPage));
        QCOMPARE(printed.value(QLatin1String("requests")).toString(), QString::fromUtf8(kPage));
        QCOMPARE(printed.value(QLatin1String("urllibLoopback")).toString(),
                 QStringLiteral("error: URLError"));
        QCOMPARE(printed.value(QLatin1String("requestsLoopback")).toString(),
                 QStringLiteral("error: ConnectionError"));
        const auto run = latestRun();
        QVERIFY(run);
        QCOMPARE(run->connections.size(), 2);
        for (const auto& connection : run->connections) {
            QVERIFY2(connection.allowed, qPrintable(connection.reason));
            QCOMPARE(connection.address, QStringLiteral("127.0.0.1"));
        }

        const QJsonObject node = server->callTool(
            QStringLiteral("run_js_code"),
            code(QStringLiteral(
                     "(async () => {\n"
                     "const attempt = async (url) => {\n"
                     "  try { return await (await fetch(url)).text(); }\n"
                     "  catch (error) { return 'error: ' + (error.cause && "
                     "error.cause.code); }\n"
                     "};\n"
                     "console.log(JSON.stringify({\n"
                     "  fetch: await attempt('http://host.containers.internal:%1/hello.txt'),\n"
                     "  alias: await attempt('http://host.docker.internal:%1/hello.txt'),\n"
                     "  loopback: await attempt('http://127.0.0.1:%1/hello.txt'),\n"
                     "}));\n"
                     "})();\n")
                     .arg(port)),
            120'000);
        const QJsonObject fetched = printedJson(node);
        QVERIFY2(!fetched.isEmpty(), describe(node).constData());
        QCOMPARE(fetched.value(QLatin1String("fetch")).toString(), QString::fromUtf8(kPage));
        QCOMPARE(fetched.value(QLatin1String("alias")).toString(), QString::fromUtf8(kPage));
        QCOMPARE(fetched.value(QLatin1String("loopback")).toString(),
                 QStringLiteral("error: ECONNREFUSED"));
        // Refused by the sandbox's own loopback, not by the proxy (whose refusal fetch reports
        // alike): the proxy saw the two named connections only.
        const auto nodeRun = latestRun();
        QVERIFY(nodeRun);
        QCOMPARE(nodeRun->connections.size(), 2);
        for (const auto& connection : nodeRun->connections)
            QVERIFY2(connection.host.startsWith(QLatin1String("host.")),
                     qPrintable(connection.host));
        // Four pages by name; none by 127.0.0.1, which never left the sandbox.
        QCOMPARE(service.pagesServed(4), 4);
        QTest::qWait(300);
        QCOMPARE(service.log().count(QStringLiteral("GET /hello.txt")), 4);
    }

    void programsThatIgnoreTheProxyFindNoNetwork_data() { addColdAndPooled(); }
    void programsThatIgnoreTheProxyFindNoNetwork()
    {
        QFETCH(int, poolSize);
        auto server = startAllowingUpstream(poolSize);
        QVERIFY(server);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import json, os, socket\n"
                                "def connect(host, port):\n"
                                "    try:\n"
                                "        socket.create_connection((host, port), timeout=3)"
                                ".close()\n"
                                "        return 'connected'\n"
                                "    except OSError as error:\n"
                                "        return error.errno\n"
                                "def resolve(name):\n"
                                "    try:\n"
                                "        return socket.gethostbyname(name)\n"
                                "    except OSError as error:\n"
                                "        return 'unresolved'\n"
                                "print(json.dumps({\n"
                                "  'upstream': connect('%1', %2),\n"
                                "  'public': connect('1.1.1.1', 80),\n"
                                "  'metadata': connect('169.254.169.254', 80),\n"
                                "  'dns': resolve('example.com'),\n"
                                "  'interfaces': sorted(os.listdir('/sys/class/net')),\n"
                                "}))\n")
                     .arg(kUpstreamAddress)
                     .arg(m_upstream.port())),
            120'000);
        const QJsonObject printed = printedJson(result);
        QVERIFY2(!printed.isEmpty(), describe(result).constData());
        // Only the container's own loopback: nothing listens at the upstream's address there,
        // and there is no route anywhere else.
        QCOMPARE(printed.value(QLatin1String("interfaces")).toArray(),
                 QJsonArray{QStringLiteral("lo")});
        for (const QString& key :
             {QStringLiteral("upstream"), QStringLiteral("public"), QStringLiteral("metadata")}) {
            QVERIFY2(printed.value(key).isDouble(), describe(result).constData());
        }
        QCOMPARE(printed.value(QLatin1String("dns")).toString(), QStringLiteral("unresolved"));
    }

    void allowlistAllowsOnlyTheListedHosts()
    {
        auto server = startServer(0, {QStringLiteral("--egress"), QStringLiteral("allowlist"),
                                      QStringLiteral("--allow-host"), m_upstream.hostPort()});
        QVERIFY(server);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import json, requests\n"
                                "ok = requests.get('http://%1/hello.txt', timeout=20)\n"
                                "other = requests.get('http://%2:%3/', timeout=20)\n"
                                "print(json.dumps([ok.status_code, other.status_code, "
                                "other.text]))\n")
                     .arg(m_upstream.hostPort(), kUpstreamAddress)
                     .arg(m_upstream.port() + 1)),
            120'000);
        const QJsonArray printed = QJsonDocument::fromJson(stdoutOf(result).toUtf8()).array();
        QVERIFY2(printed.size() == 3, describe(result).constData());
        QCOMPARE(printed.at(0).toInt(), 200);
        QCOMPARE(printed.at(1).toInt(), 403);
        QVERIFY2(printed.at(2).toString().contains(QLatin1String("not on the allow list")),
                 qPrintable(printed.at(2).toString()));
        // The tool description tells the model the rule before it tries.
        const QString description =
            callresult::toolDescription(server->request(QStringLiteral("tools/list")));
        QVERIFY2(description.contains(QStringLiteral("only %1").arg(m_upstream.hostPort())),
                 qPrintable(description));
    }

    // A remote engine's container reaches the proxy through an egress carrier the server runs in
    // it (exec), beside the program. The program, hostile, finds it and attacks it: it runs as
    // another user, so the program can neither signal it nor open its streams to the server.
    void theCarrierIsOutOfTheProgramsReach_data() { addColdAndPooled(); }
    void theCarrierIsOutOfTheProgramsReach()
    {
        if (!TestEngine::isRemote())
            QSKIP("a local engine's sandboxes reach the proxy through a folder, with no carrier");
        QFETCH(int, poolSize);
        auto server = startAllowingUpstream(poolSize);
        QVERIFY(server);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral(
                "import json, os, signal, time\n"
                "found = None\n"
                "deadline = time.time() + 30\n"
                "while found is None and time.time() < deadline:\n"
                "    for pid in filter(str.isdigit, os.listdir('/proc')):\n"
                "        try:\n"
                "            if b'--egress-carrier' in open(f'/proc/{pid}/cmdline', 'rb').read():\n"
                "                found = int(pid)\n"
                "        except OSError:\n"
                "            pass\n"
                "    time.sleep(0.1)\n"
                "out = {'found': found is not None}\n"
                "if found:\n"
                "    out['uid'] = os.stat(f'/proc/{found}').st_uid\n"
                "    try:\n"
                "        os.kill(found, signal.SIGKILL)\n"
                "        out['kill'] = 'done'\n"
                "    except PermissionError:\n"
                "        out['kill'] = 'refused'\n"
                "    try:\n"
                "        open(f'/proc/{found}/fd/1', 'wb')\n"
                "        out['stream'] = 'opened'\n"
                "    except OSError:\n"
                "        out['stream'] = 'refused'\n"
                "print(json.dumps(out))\n")),
            120'000);
        const QJsonObject printed = printedJson(result);
        QVERIFY2(!printed.isEmpty(), describe(result).constData());
        QVERIFY2(printed.value(QLatin1String("found")).toBool(), describe(result).constData());
        QVERIFY(printed.value(QLatin1String("uid")).toInt() != 65534);
        QCOMPARE(printed.value(QLatin1String("kill")).toString(), QStringLiteral("refused"));
        QCOMPARE(printed.value(QLatin1String("stream")).toString(), QStringLiteral("refused"));
        // And the network it carries still works after the attack.
        const QJsonObject after = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral(
                     "import urllib.request\n"
                     "print(urllib.request.urlopen('http://%1/hello.txt').read().decode())")
                     .arg(m_upstream.hostPort())),
            120'000);
        QVERIFY2(!callresult::isError(after), describe(after).constData());
    }

    void egressNoneHasNoProxy()
    {
        auto server = startServer(0, {QStringLiteral("--egress"), QStringLiteral("none"),
                                      QStringLiteral("--allow-host"), m_upstream.hostPort()});
        QVERIFY(server);
        const QJsonObject result = server->callTool(
            QStringLiteral("run_python_code"),
            code(QStringLiteral("import json, os, socket\n"
                                "try:\n"
                                "    socket.create_connection(('127.0.0.1', 3128), timeout=3)\n"
                                "    proxy = 'listening'\n"
                                "except OSError as error:\n"
                                "    proxy = error.errno\n"
                                "print(json.dumps({'variable': os.environ.get('HTTP_PROXY'), "
                                "'proxy': proxy}))\n")),
            120'000);
        const QJsonObject printed = printedJson(result);
        QVERIFY2(!printed.isEmpty(), describe(result).constData());
        QVERIFY(printed.value(QLatin1String("variable")).isNull());
        QVERIFY(printed.value(QLatin1String("proxy")).isDouble());
    }
};

QTEST_GUILESS_MAIN(tst_Egress)
#include "tst_Egress.moc"
