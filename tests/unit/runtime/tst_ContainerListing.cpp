#include "runtime/ContainerInfo.h"
#include "runtime/DockerRuntime.h"
#include "runtime/PodmanRuntime.h"

#include <QTest>

#include <memory>

using namespace csm;

namespace {

// Captured from the real engines (podman 4.3.1, docker 28.2.2) with two containers: csm-probe-a
// (running, labelled with app, host, instance and a dead pid) and csm-probe-b (created, app label
// and `code-sandbox.weird=a,b=c`). Both inherit the image's labels, among them
// code-sandbox.versions, whose value holds commas and equals signs.

// `podman ps --all --filter label=code-sandbox.app=code-sandbox-mcp --format json`
const char kPodmanReal[] =
    "[\n"
    "  {\n"
    "    \"AutoRemove\": false,\n"
    "    \"Command\": [\n"
    "      \"sleep\",\n"
    "      \"1000\"\n"
    "    ],\n"
    "    \"CreatedAt\": \"About a minute ago\",\n"
    "    \"Exited\": false,\n"
    "    \"ExitedAt\": -62135596800,\n"
    "    \"ExitCode\": 0,\n"
    "    \"Id\": \"8f42faa3ddee306fe497c3a63ea94e23c725f91fa3643a681076e41a89ee60d0\",\n"
    "    \"Image\": \"localhost/code-sandbox-python:latest\",\n"
    "    \"ImageID\": \"74d885fce7182b1ee5e37bd93b0ee331125441ba0d4db7fd348ae05b6c4c4bd6\",\n"
    "    \"IsInfra\": false,\n"
    "    \"Labels\": {\n"
    "      \"code-sandbox.app\": \"code-sandbox-mcp\",\n"
    "      \"code-sandbox.host\": \"vm\",\n"
    "      \"code-sandbox.image\": \"python\",\n"
    "      \"code-sandbox.instance\": \"probeinst\",\n"
    "      \"code-sandbox.pid\": \"999999\",\n"
    "      \"code-sandbox.recipe\": \"55bc884afc11\",\n"
    "      \"code-sandbox.versions\": "
    "\"python3=3.11.2-1+b1,python3-matplotlib=3.6.3-1+b1,python3-numpy=1:1.24.2-1+deb12u1,python3-"
    "pandas=1.5.3+dfsg-2,python3-requests=2.28.1+dfsg-1\",\n"
    "      \"org.opencontainers.image.description\": \"Code Sandbox python image, debootstrapped "
    "from Debian bookworm\",\n"
    "      \"org.opencontainers.image.title\": \"code-sandbox-python\"\n"
    "    },\n"
    "    \"Mounts\": [],\n"
    "    \"Names\": [\n"
    "      \"csm-probe-a\"\n"
    "    ],\n"
    "    \"Namespaces\": {\n"
    "      \n"
    "    },\n"
    "    \"Networks\": [\n"
    "      \"podman\"\n"
    "    ],\n"
    "    \"Pid\": 9886,\n"
    "    \"Pod\": \"\",\n"
    "    \"PodName\": \"\",\n"
    "    \"Ports\": null,\n"
    "    \"Size\": null,\n"
    "    \"StartedAt\": 1796227423,\n"
    "    \"State\": \"running\",\n"
    "    \"Status\": \"Up About a minute ago\",\n"
    "    \"Created\": 1796227423\n"
    "  },\n"
    "  {\n"
    "    \"AutoRemove\": false,\n"
    "    \"Command\": [\n"
    "      \"sleep\",\n"
    "      \"1000\"\n"
    "    ],\n"
    "    \"CreatedAt\": \"About a minute ago\",\n"
    "    \"Exited\": false,\n"
    "    \"ExitedAt\": -62135596800,\n"
    "    \"ExitCode\": 0,\n"
    "    \"Id\": \"26fa204e4867e5ea3a4df13e730fb4f33b7819232664a065ad6d67274aa071f7\",\n"
    "    \"Image\": \"localhost/code-sandbox-python:latest\",\n"
    "    \"ImageID\": \"74d885fce7182b1ee5e37bd93b0ee331125441ba0d4db7fd348ae05b6c4c4bd6\",\n"
    "    \"IsInfra\": false,\n"
    "    \"Labels\": {\n"
    "      \"code-sandbox.app\": \"code-sandbox-mcp\",\n"
    "      \"code-sandbox.image\": \"python\",\n"
    "      \"code-sandbox.recipe\": \"55bc884afc11\",\n"
    "      \"code-sandbox.versions\": "
    "\"python3=3.11.2-1+b1,python3-matplotlib=3.6.3-1+b1,python3-numpy=1:1.24.2-1+deb12u1,python3-"
    "pandas=1.5.3+dfsg-2,python3-requests=2.28.1+dfsg-1\",\n"
    "      \"code-sandbox.weird\": \"a,b=c\",\n"
    "      \"org.opencontainers.image.description\": \"Code Sandbox python image, debootstrapped "
    "from Debian bookworm\",\n"
    "      \"org.opencontainers.image.title\": \"code-sandbox-python\"\n"
    "    },\n"
    "    \"Mounts\": [],\n"
    "    \"Names\": [\n"
    "      \"csm-probe-b\"\n"
    "    ],\n"
    "    \"Namespaces\": {\n"
    "      \n"
    "    },\n"
    "    \"Networks\": [\n"
    "      \"podman\"\n"
    "    ],\n"
    "    \"Pid\": 0,\n"
    "    \"Pod\": \"\",\n"
    "    \"PodName\": \"\",\n"
    "    \"Ports\": null,\n"
    "    \"Size\": null,\n"
    "    \"StartedAt\": -62135596800,\n"
    "    \"State\": \"created\",\n"
    "    \"Status\": \"Created\",\n"
    "    \"Created\": 1796227423\n"
    "  }\n"
    "]\n";

// `docker ps --all --no-trunc --filter label=... --format '{{json .}}'`: labels only as one string.
const char kDockerPlain[] =
    "{\"Command\":\"\\\"sleep 1000\\\"\",\"CreatedAt\":\"2026-12-02 16:03:48 +0000 "
    "UTC\",\"ID\":\"09f4ad94ea01e58628962bc28a41f8aeb6c25cc1e78a36a6fda137d57ef820fc\",\"Image\":"
    "\"code-sandbox-python:latest\",\"Labels\":\"code-sandbox.app=code-sandbox-mcp,code-sandbox."
    "image=python,code-sandbox.recipe=55bc884afc11,code-sandbox.versions=python3=3.11.2-1+b1,"
    "python3-matplotlib=3.6.3-1+b1,python3-numpy=1:1.24.2-1+deb12u1,python3-pandas=1.5.3+dfsg-2,"
    "python3-requests=2.28.1+dfsg-1,code-sandbox.weird=a,b=c,org.opencontainers.image.description="
    "Code Sandbox python image, debootstrapped from Debian "
    "bookworm,org.opencontainers.image.title=code-sandbox-python\",\"LocalVolumes\":\"0\","
    "\"Mounts\":\"\",\"Names\":\"csm-probe-b\",\"Networks\":\"bridge\",\"Platform\":null,\"Ports\":"
    "\"\",\"RunningFor\":\"About a minute ago\",\"Size\":\"0B (virtual "
    "425MB)\",\"State\":\"created\",\"Status\":\"Created\"}\n"
    "{\"Command\":\"\\\"sleep 1000\\\"\",\"CreatedAt\":\"2026-12-02 16:03:47 +0000 "
    "UTC\",\"ID\":\"0fd6bd5cc9da558523c8d97269470008e680ca7f39ed77155751f2b1841c4508\",\"Image\":"
    "\"code-sandbox-python:latest\",\"Labels\":\"code-sandbox.app=code-sandbox-mcp,code-sandbox."
    "host=vm,code-sandbox.image=python,code-sandbox.instance=probeinst,code-sandbox.pid=999999,"
    "code-sandbox.recipe=55bc884afc11,code-sandbox.versions=python3=3.11.2-1+b1,python3-matplotlib="
    "3.6.3-1+b1,python3-numpy=1:1.24.2-1+deb12u1,python3-pandas=1.5.3+dfsg-2,python3-requests=2.28."
    "1+dfsg-1,org.opencontainers.image.description=Code Sandbox python image, debootstrapped from "
    "Debian "
    "bookworm,org.opencontainers.image.title=code-sandbox-python\",\"LocalVolumes\":\"0\","
    "\"Mounts\":\"\",\"Names\":\"csm-probe-a\",\"Networks\":\"bridge\",\"Platform\":null,\"Ports\":"
    "\"\",\"RunningFor\":\"About a minute ago\",\"Size\":\"0B (virtual "
    "425MB)\",\"State\":\"running\",\"Status\":\"Up About a minute\"}\n";

// DockerRuntime::listContainersArguments()'s own template: the same, plus LabelValues.
const char kDockerTemplate[] =
    "{\"ID\":\"09f4ad94ea01e58628962bc28a41f8aeb6c25cc1e78a36a6fda137d57ef820fc\",\"Names\":\"csm-"
    "probe-b\",\"Labels\":\"code-sandbox.app=code-sandbox-mcp,code-sandbox.image=python,code-"
    "sandbox.recipe=55bc884afc11,code-sandbox.versions=python3=3.11.2-1+b1,python3-matplotlib=3.6."
    "3-1+b1,python3-numpy=1:1.24.2-1+deb12u1,python3-pandas=1.5.3+dfsg-2,python3-requests=2.28.1+"
    "dfsg-1,code-sandbox.weird=a,b=c,org.opencontainers.image.description=Code Sandbox python "
    "image, debootstrapped from Debian "
    "bookworm,org.opencontainers.image.title=code-sandbox-python\",\"LabelValues\":{\"code-sandbox."
    "app\":\"code-sandbox-mcp\",\"code-sandbox.instance\":\"\",\"code-sandbox.pid\":\"\",\"code-"
    "sandbox.host\":\"\"}}\n"
    "{\"ID\":\"0fd6bd5cc9da558523c8d97269470008e680ca7f39ed77155751f2b1841c4508\",\"Names\":\"csm-"
    "probe-a\",\"Labels\":\"code-sandbox.app=code-sandbox-mcp,code-sandbox.host=vm,code-sandbox."
    "image=python,code-sandbox.instance=probeinst,code-sandbox.pid=999999,code-sandbox.recipe="
    "55bc884afc11,code-sandbox.versions=python3=3.11.2-1+b1,python3-matplotlib=3.6.3-1+b1,python3-"
    "numpy=1:1.24.2-1+deb12u1,python3-pandas=1.5.3+dfsg-2,python3-requests=2.28.1+dfsg-1,org."
    "opencontainers.image.description=Code Sandbox python image, debootstrapped from Debian "
    "bookworm,org.opencontainers.image.title=code-sandbox-python\",\"LabelValues\":{\"code-sandbox."
    "app\":\"code-sandbox-mcp\",\"code-sandbox.instance\":\"probeinst\",\"code-sandbox.pid\":"
    "\"999999\",\"code-sandbox.host\":\"vm\"}}\n";

const char kPodmanVersions[] =
    "python3=3.11.2-1+b1,python3-matplotlib=3.6.3-1+b1,python3-numpy=1:1.24.2-1+deb12u1,"
    "python3-pandas=1.5.3+dfsg-2,python3-requests=2.28.1+dfsg-1";

std::unique_ptr<ContainerRuntime> makeRuntime(const QString& engine)
{
    if (engine == QLatin1String("podman"))
        return std::make_unique<PodmanRuntime>();
    return std::make_unique<DockerRuntime>();
}

// A label's value, or "-" when the container does not have it.
QString labelOrDash(const ContainerInfo& container, const char* key)
{
    return container.labels.value(QLatin1String(key), QStringLiteral("-"));
}

const ContainerInfo* findByName(const QList<ContainerInfo>& containers, const QString& name)
{
    for (const ContainerInfo& container : containers) {
        if (container.name == name)
            return &container;
    }
    return nullptr;
}

} // namespace

class tst_ContainerListing : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data();
    void parse();
    void podmanReadsEveryLabelExactly();
    void dockerReadsTheLabelStringAsWellAsItCan();
    void dockerExactValuesWinOverTheLabelString();
    void listArguments_data();
    void listArguments();
};

void tst_ContainerListing::parse_data()
{
    QTest::addColumn<QString>("engine");
    QTest::addColumn<QByteArray>("output");
    // One entry per container read, in the engine's order.
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<QStringList>("ids");
    QTest::addColumn<QStringList>("pids"); // "-": no pid label
    QTest::addColumn<QStringList>("hosts");

    const QString podman = QStringLiteral("podman");
    const QString docker = QStringLiteral("docker");
    const QString idA =
        QStringLiteral("8f42faa3ddee306fe497c3a63ea94e23c725f91fa3643a681076e41a89ee60d0");
    const QString idB =
        QStringLiteral("26fa204e4867e5ea3a4df13e730fb4f33b7819232664a065ad6d67274aa071f7");
    const QString dockerIdA =
        QStringLiteral("0fd6bd5cc9da558523c8d97269470008e680ca7f39ed77155751f2b1841c4508");
    const QString dockerIdB =
        QStringLiteral("09f4ad94ea01e58628962bc28a41f8aeb6c25cc1e78a36a6fda137d57ef820fc");
    const QString dash = QStringLiteral("-");
    const QString abc = QStringLiteral("abc");
    const QString n = QStringLiteral("n");

    QTest::newRow("podman: real, two containers")
        << podman << QByteArray(kPodmanReal)
        << QStringList{QStringLiteral("csm-probe-a"), QStringLiteral("csm-probe-b")}
        << QStringList{idA, idB} << QStringList{QStringLiteral("999999"), dash}
        << QStringList{QStringLiteral("vm"), dash};
    QTest::newRow("podman: none") << podman << QByteArray("[]\n") << QStringList{} << QStringList{}
                                  << QStringList{} << QStringList{};
    QTest::newRow("podman: empty output") << podman << QByteArray() << QStringList{}
                                          << QStringList{} << QStringList{} << QStringList{};
    QTest::newRow("podman: error text")
        << podman << QByteArray("Error: cannot connect to Podman socket\n") << QStringList{}
        << QStringList{} << QStringList{} << QStringList{};
    QTest::newRow("podman: truncated")
        << podman << QByteArray(kPodmanReal).left(900) << QStringList{} << QStringList{}
        << QStringList{} << QStringList{};
    QTest::newRow("podman: an object, not an array")
        << podman << QByteArray("{\"Id\":\"abc\",\"Names\":[\"n\"]}") << QStringList{}
        << QStringList{} << QStringList{} << QStringList{};
    QTest::newRow("podman: entries of the wrong type skipped")
        << podman
        << QByteArray("[1, \"x\", null, [], "
                      "{\"Id\":\"abc\",\"Names\":[\"n\"],\"Labels\":{\"code-sandbox.pid\":\"5\"}}]")
        << QStringList{n} << QStringList{abc} << QStringList{QStringLiteral("5")}
        << QStringList{dash};
    QTest::newRow("podman: no Labels")
        << podman << QByteArray("[{\"Id\":\"abc\",\"Names\":[\"n\"]}]") << QStringList{n}
        << QStringList{abc} << QStringList{dash} << QStringList{dash};
    QTest::newRow("podman: Labels null")
        << podman << QByteArray("[{\"Id\":\"abc\",\"Names\":[\"n\"],\"Labels\":null}]")
        << QStringList{n} << QStringList{abc} << QStringList{dash} << QStringList{dash};
    QTest::newRow("podman: neither id nor name skipped")
        << podman
        << QByteArray("[{\"Labels\":{\"code-sandbox.pid\":\"1\"}},{\"Id\":\"\",\"Names\":[]},{"
                      "\"Names\":[\"n\"]}]")
        << QStringList{n} << QStringList{QString()} << QStringList{dash} << QStringList{dash};
    QTest::newRow("podman: a label that is not a string skipped")
        << podman
        << QByteArray("[{\"Id\":\"abc\",\"Names\":[\"n\"],\"Labels\":{\"code-sandbox.pid\":42,"
                      "\"code-sandbox.host\":\"vm\"}}]")
        << QStringList{n} << QStringList{abc} << QStringList{dash}
        << QStringList{QStringLiteral("vm")};

    QTest::newRow("docker: real {{json .}}")
        << docker << QByteArray(kDockerPlain)
        << QStringList{QStringLiteral("csm-probe-b"), QStringLiteral("csm-probe-a")}
        << QStringList{dockerIdB, dockerIdA} << QStringList{dash, QStringLiteral("999999")}
        << QStringList{dash, QStringLiteral("vm")};
    QTest::newRow("docker: real, our template")
        << docker << QByteArray(kDockerTemplate)
        << QStringList{QStringLiteral("csm-probe-b"), QStringLiteral("csm-probe-a")}
        << QStringList{dockerIdB, dockerIdA} << QStringList{dash, QStringLiteral("999999")}
        << QStringList{dash, QStringLiteral("vm")};
    QTest::newRow("docker: none") << docker << QByteArray() << QStringList{} << QStringList{}
                                  << QStringList{} << QStringList{};
    QTest::newRow("docker: blank lines") << docker << QByteArray("\n \n\r\n") << QStringList{}
                                         << QStringList{} << QStringList{} << QStringList{};
    QTest::newRow("docker: daemon down")
        << docker
        << QByteArray("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is "
                      "the docker daemon running?\n")
        << QStringList{} << QStringList{} << QStringList{} << QStringList{};
    QTest::newRow("docker: a bad line among good ones")
        << docker
        << (QByteArray("{\"ID\":\"abc\",\"Names\":\"n\",\"Labels\":\"code-sandbox.pid=7\"}") +
            "\n{\"ID\":\"trunc\n[1,2]\n\"just a string\"\n" +
            QByteArray("{\"ID\":\"def\",\"Names\":\"m\",\"Labels\":\"\"}") + '\n')
        << QStringList{n, QStringLiteral("m")} << QStringList{abc, QStringLiteral("def")}
        << QStringList{QStringLiteral("7"), dash} << QStringList{dash, dash};
    QTest::newRow("docker: no Labels")
        << docker << QByteArray("{\"ID\":\"abc\",\"Names\":\"n\"}") << QStringList{n}
        << QStringList{abc} << QStringList{dash} << QStringList{dash};
    QTest::newRow("docker: neither id nor name skipped")
        << docker << QByteArray("{\"Labels\":\"code-sandbox.pid=1\"}\n{\"Names\":\"n\"}\n")
        << QStringList{n} << QStringList{QString()} << QStringList{dash} << QStringList{dash};
    QTest::newRow("docker: several names, the first kept")
        << docker << QByteArray("{\"ID\":\"abc\",\"Names\":\"n,other/alias\"}") << QStringList{n}
        << QStringList{abc} << QStringList{dash} << QStringList{dash};
    QTest::newRow("docker: Labels as an object")
        << docker
        << QByteArray("{\"ID\":\"abc\",\"Names\":\"n\",\"Labels\":{\"code-sandbox.pid\":\"9\"}}")
        << QStringList{n} << QStringList{abc} << QStringList{QStringLiteral("9")}
        << QStringList{dash};
    QTest::newRow("docker: a JSON array is not its format")
        << docker << QByteArray(kPodmanReal).simplified() << QStringList{} << QStringList{}
        << QStringList{} << QStringList{};
}

void tst_ContainerListing::parse()
{
    QFETCH(QString, engine);
    QFETCH(QByteArray, output);
    QFETCH(QStringList, names);
    QFETCH(QStringList, ids);
    QFETCH(QStringList, pids);
    QFETCH(QStringList, hosts);

    const QList<ContainerInfo> containers = makeRuntime(engine)->parseContainerList(output);
    QStringList gotNames, gotIds, gotPids, gotHosts;
    for (const ContainerInfo& container : containers) {
        gotNames << container.name;
        gotIds << container.id;
        gotPids << labelOrDash(container, "code-sandbox.pid");
        gotHosts << labelOrDash(container, "code-sandbox.host");
    }
    QCOMPARE(gotNames, names);
    QCOMPARE(gotIds, ids);
    QCOMPARE(gotPids, pids);
    QCOMPARE(gotHosts, hosts);
}

void tst_ContainerListing::podmanReadsEveryLabelExactly()
{
    const QList<ContainerInfo> containers = PodmanRuntime().parseContainerList(kPodmanReal);
    const ContainerInfo* a = findByName(containers, QStringLiteral("csm-probe-a"));
    QVERIFY(a);
    QCOMPARE(a->labels.size(), 9);
    QCOMPARE(a->labels.value(QStringLiteral("code-sandbox.app")),
             QStringLiteral("code-sandbox-mcp"));
    QCOMPARE(a->labels.value(QStringLiteral("code-sandbox.instance")), QStringLiteral("probeinst"));
    QCOMPARE(a->labels.value(QStringLiteral("code-sandbox.versions")),
             QLatin1String(kPodmanVersions));
    QCOMPARE(a->reference(), a->id);

    const ContainerInfo* b = findByName(containers, QStringLiteral("csm-probe-b"));
    QVERIFY(b);
    QCOMPARE(b->labels.value(QStringLiteral("code-sandbox.weird")), QStringLiteral("a,b=c"));
}

void tst_ContainerListing::dockerReadsTheLabelStringAsWellAsItCan()
{
    const QList<ContainerInfo> containers = DockerRuntime().parseContainerList(kDockerPlain);
    const ContainerInfo* a = findByName(containers, QStringLiteral("csm-probe-a"));
    QVERIFY(a);
    QCOMPARE(a->labels.value(QStringLiteral("code-sandbox.app")),
             QStringLiteral("code-sandbox-mcp"));
    QCOMPARE(a->labels.value(QStringLiteral("code-sandbox.instance")), QStringLiteral("probeinst"));
    // A piece without "key=" continues the previous value.
    QCOMPARE(a->labels.value(QStringLiteral("org.opencontainers.image.description")),
             QStringLiteral("Code Sandbox python image, debootstrapped from Debian bookworm"));
    QCOMPARE(a->labels.value(QStringLiteral("org.opencontainers.image.title")),
             QStringLiteral("code-sandbox-python"));
}

void tst_ContainerListing::dockerExactValuesWinOverTheLabelString()
{
    // Another label's value ends in ",code-sandbox.pid=1": the string alone would invent a pid
    // label; LabelValues says there is none, and gives the host exactly.
    const QByteArray line =
        "{\"ID\":\"abc\",\"Names\":\"n\",\"Labels\":\"code-sandbox.app=code-sandbox-mcp,code-"
        "sandbox.host=vm,code-sandbox.note=x,code-sandbox.pid=1,code-sandbox.host=fake\","
        "\"LabelValues\":{\"code-sandbox.app\":\"code-sandbox-mcp\",\"code-sandbox.instance\":\"\","
        "\"code-sandbox.pid\":\"\",\"code-sandbox.host\":\"vm\"}}";
    const QList<ContainerInfo> containers = DockerRuntime().parseContainerList(line);
    QCOMPARE(containers.size(), 1);
    const ContainerInfo& container = containers.first();
    QVERIFY(!container.labels.contains(QStringLiteral("code-sandbox.pid")));
    QVERIFY(!container.labels.contains(QStringLiteral("code-sandbox.instance")));
    QCOMPARE(container.labels.value(QStringLiteral("code-sandbox.host")), QStringLiteral("vm"));

    const QList<ContainerInfo> real = DockerRuntime().parseContainerList(kDockerTemplate);
    const ContainerInfo* b = findByName(real, QStringLiteral("csm-probe-b"));
    QVERIFY(b);
    QVERIFY(!b->labels.contains(QStringLiteral("code-sandbox.pid")));
}

void tst_ContainerListing::listArguments_data()
{
    QTest::addColumn<QString>("engine");
    QTest::newRow("podman") << QStringLiteral("podman");
    QTest::newRow("docker") << QStringLiteral("docker");
}

void tst_ContainerListing::listArguments()
{
    QFETCH(QString, engine);
    const QStringList args = makeRuntime(engine)->listContainersArguments();
    QCOMPARE(args.value(0), QStringLiteral("ps"));
    QVERIFY(args.contains(QStringLiteral("--all")));
    const qsizetype filter = args.indexOf(QStringLiteral("--filter"));
    QVERIFY(filter >= 0);
    QCOMPARE(args.value(filter + 1), QStringLiteral("label=code-sandbox.app=code-sandbox-mcp"));
    const qsizetype format = args.indexOf(QStringLiteral("--format"));
    QVERIFY(format >= 0);
    if (engine == QLatin1String("podman")) {
        QCOMPARE(args.value(format + 1), QStringLiteral("json"));
    } else {
        QVERIFY(args.contains(QStringLiteral("--no-trunc"))); // full ids, never ambiguous
        const QString tmpl = args.value(format + 1);
        for (const char* key : {"code-sandbox.app", "code-sandbox.instance", "code-sandbox.pid",
                                "code-sandbox.host"}) {
            QVERIFY2(tmpl.contains(QStringLiteral("(.Label \"%1\")").arg(QLatin1String(key))), key);
        }
    }
}

QTEST_GUILESS_MAIN(tst_ContainerListing)
#include "tst_ContainerListing.moc"
