// Issue 18's benchmark: a 50 MB download from a test server on this machine, from inside a
// sandbox, through the egress proxy (--egress open, the server named with --allow-host) and
// through the engine's bridge (--egress bridge), one real code-sandbox-mcp for each, same
// engine, same program. The program measures inside the sandbox: the time to the first byte
// (connect, the request, the proxy's decision and its own connect included) and the throughput
// of the rest. Pooled containers; 9 downloads of each, medians and worst. Prints one table;
// see RESULTS.md. With --gvisor, a third server downloads through the proxy under the gVisor
// tier (issue 36), whose sandboxes have no bridge.
//
//   bench_egress_download [--engine podman|docker] [--gvisor]
//
// The test server is Python's http.server bound to 0.0.0.0 on a free port: the bridge reaches
// this machine through the bridge's gateway address, which exists only while a container runs.
#include "BenchTable.h"
#include "LoopbackHttpServer.h"
#include "McpStdioClient.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTextStream>

#include <memory>

using namespace csm;

namespace {

constexpr int kDownloads = 9;
constexpr qint64 kFileBytes = 50LL * 1000 * 1000;

QTextStream& out()
{
    static QTextStream stream(stdout);
    return stream;
}

// The address a container on the engine's default bridge reaches this machine at.
QString bridgeGateway(const QString& engine)
{
    QProcess inspect;
    if (engine == QLatin1String("docker")) {
        inspect.start(engine, {QStringLiteral("network"), QStringLiteral("inspect"),
                               QStringLiteral("bridge"), QStringLiteral("--format"),
                               QStringLiteral("{{(index .IPAM.Config 0).Gateway}}")});
    } else {
        inspect.start(engine, {QStringLiteral("network"), QStringLiteral("inspect"),
                               QStringLiteral("podman"), QStringLiteral("--format"),
                               QStringLiteral("{{(index .Subnets 0).Gateway}}")});
    }
    inspect.waitForFinished(30'000);
    return QString::fromUtf8(inspect.readAllStandardOutput()).trimmed();
}

std::unique_ptr<McpStdioClient> startServer(const QString& engine, const QString& dataDir,
                                            const QStringList& more)
{
    auto client = std::make_unique<McpStdioClient>();
    const QStringList arguments = QStringList{QStringLiteral("--engine"),   engine,
                                              QStringLiteral("--data-dir"), dataDir,
                                              QStringLiteral("--pool"),     QStringLiteral("1"),
                                              QStringLiteral("--verbose")} +
                                  more;
    if (!client->start(arguments, QProcessEnvironment::systemEnvironment()) ||
        client->initialize().isEmpty() || !client->waitForPooledReady(1))
        return nullptr;
    return client;
}

QString program(const QString& url)
{
    return QStringLiteral("import json, time, urllib.request\n"
                          "start = time.perf_counter()\n"
                          "response = urllib.request.urlopen('%1', timeout=60)\n"
                          "size = len(response.read(1))\n"
                          "first = time.perf_counter()\n"
                          "while True:\n"
                          "    chunk = response.read(1 << 20)\n"
                          "    if not chunk:\n"
                          "        break\n"
                          "    size += len(chunk)\n"
                          "end = time.perf_counter()\n"
                          "print(json.dumps({'first_ms': (first - start) * 1000, 'bytes': size,"
                          " 'mb_per_s': (size - 1) / (end - first) / 1e6}))\n")
        .arg(url);
}

struct Mode
{
    QString name;
    QStringList arguments;
    std::vector<double> firstByteMs;
    std::vector<double> megabytesPerSecond;
};

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int engineAt = int(args.indexOf(QStringLiteral("--engine")));
    const QString engine = engineAt > 0 ? args.value(engineAt + 1) : QStringLiteral("podman");

    LoopbackHttpServer upstream;
    QTemporaryDir data;
    QFile big(upstream.filePath(QStringLiteral("50mb.bin")));
    if (!big.open(QIODevice::WriteOnly))
        return 1;
    QByteArray block(1 << 20, Qt::Uninitialized);
    for (qint64 written = 0; written < kFileBytes; written += block.size()) {
        QRandomGenerator::global()->fillRange(reinterpret_cast<quint32*>(block.data()),
                                              block.size() / 4);
        big.write(block.left(int(std::min<qint64>(block.size(), kFileBytes - written))));
    }
    big.close();

    // On every address: the bridge reaches this machine at its gateway.
    if (!upstream.start(QStringLiteral("0.0.0.0"))) {
        out() << "the test server did not start: " << upstream.log() << Qt::endl;
        return 1;
    }
    const int port = upstream.port();

    std::vector<Mode> modes{
        {QStringLiteral("bridge"), {QStringLiteral("--egress"), QStringLiteral("bridge")}, {}, {}},
        {QStringLiteral("proxy"), {QStringLiteral("--egress"), QStringLiteral("open")}, {}, {}},
    };
    const bool gvisor = args.contains(QStringLiteral("--gvisor"));
    if (gvisor) {
        modes.push_back({QStringLiteral("gvisor"),
                         {QStringLiteral("--egress"), QStringLiteral("open"),
                          QStringLiteral("--isolation"), QStringLiteral("gvisor")},
                         {},
                         {}});
    }
    QString gateway;
    for (Mode& mode : modes) {
        // Through the proxy, this machine is host.containers.internal, which the proxy maps to
        // its loopback (the bridge's gateway may be gone once no container runs on it).
        const bool bridge = mode.name == QLatin1String("bridge");
        const QString proxied = QStringLiteral("host.containers.internal:%1").arg(port);
        auto server = startServer(
            engine, data.path(),
            mode.arguments +
                (bridge ? QStringList() : QStringList{QStringLiteral("--allow-host"), proxied}));
        if (!server) {
            out() << "the " << mode.name << " server did not start" << Qt::endl;
            return 1;
        }
        // The gateway exists once a container runs on the bridge: the bridge server's pooled
        // container is up.
        if (bridge)
            gateway = bridgeGateway(engine);
        const QString url = bridge ? QStringLiteral("http://%1:%2/50mb.bin").arg(gateway).arg(port)
                                   : QStringLiteral("http://%1/50mb.bin").arg(proxied);
        for (int i = 0; i < kDownloads + 1; ++i) {
            const QJsonObject result = server->callTool(
                QStringLiteral("run_python_code"),
                {{QStringLiteral("code"), program(url)}, {QStringLiteral("timeout_seconds"), 120}},
                180'000);
            const QJsonObject printed =
                QJsonDocument::fromJson(result.value(QLatin1String("structuredContent"))
                                            .toObject()
                                            .value(QLatin1String("stdout"))
                                            .toString()
                                            .toUtf8())
                    .object();
            if (printed.value(QLatin1String("bytes")).toInteger() != kFileBytes) {
                out() << mode.name << ": the download failed: "
                      << QJsonDocument(result).toJson(QJsonDocument::Compact) << Qt::endl;
                return 1;
            }
            if (i == 0)
                continue; // the first warms the server's page cache and the engine
            mode.firstByteMs.push_back(printed.value(QLatin1String("first_ms")).toDouble());
            mode.megabytesPerSecond.push_back(printed.value(QLatin1String("mb_per_s")).toDouble());
            // The next call gets a fresh pooled container.
            server->waitForPooledReady(i + 2);
        }
    }

    out() << "engine " << engine << ", " << kDownloads << " downloads of " << kFileBytes / 1000000
          << " MB each, from http.server on this machine, measured inside the sandbox\n";
    out() << QStringLiteral("%1 %2 %3 %4 %5\n")
                 .arg(QStringLiteral("mode"), -8)
                 .arg(QStringLiteral("first byte p50"), 15)
                 .arg(QStringLiteral("max"), 9)
                 .arg(QStringLiteral("MB/s p50"), 10)
                 .arg(QStringLiteral("min"), 9);
    for (const Mode& mode : modes) {
        out() << QStringLiteral("%1 %2 %3 %4 %5\n")
                     .arg(mode.name, -8)
                     .arg(QStringLiteral("%1 ms").arg(percentile(mode.firstByteMs, 0.5), 0, 'f', 1),
                          15)
                     .arg(QStringLiteral("%1 ms").arg(percentile(mode.firstByteMs, 1.0), 0, 'f', 1),
                          9)
                     .arg(percentile(mode.megabytesPerSecond, 0.5), 10, 'f', 0)
                     .arg(percentile(mode.megabytesPerSecond, 0.01), 9, 'f', 0);
    }
    const double ratio =
        percentile(modes[0].megabytesPerSecond, 0.5) / percentile(modes[1].megabytesPerSecond, 0.5);
    out() << QStringLiteral("bridge/proxy throughput: %1x; first byte added by the proxy: %2 ms\n")
                 .arg(ratio, 0, 'f', 2)
                 .arg(percentile(modes[1].firstByteMs, 0.5) - percentile(modes[0].firstByteMs, 0.5),
                      0, 'f', 1);
    if (gvisor) {
        out() << QStringLiteral("proxy under gVisor/standard throughput: %1x; first byte added by "
                                "gVisor: %2 ms\n")
                     .arg(percentile(modes[2].megabytesPerSecond, 0.5) /
                              percentile(modes[1].megabytesPerSecond, 0.5),
                          0, 'f', 2)
                     .arg(percentile(modes[2].firstByteMs, 0.5) -
                              percentile(modes[1].firstByteMs, 0.5),
                          0, 'f', 1);
    }
    return 0;
}
