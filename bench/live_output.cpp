// The live-output path of the desktop app: a real code-sandbox-mcp (stdio, a real engine) runs a
// program while the Runs page watches it.
//  - Latency: the program prints its clock every 100 ms; the time from a print to the line
//    showing in the detail pane (the server writes the latest output to the history at most
//    every RunCodeCall::kPrintedIntervalMs, the page reads it every
//    RunsPage::kLiveRefreshIntervalMs while the run shown is running).
//  - Cost: the server's own CPU time (user + system, from /proc) while a program prints 10,000
//    lines a second for 10 s, with the history (live output written) and with --no-history
//    (nothing written), the same server otherwise.
// Prints one table; see RESULTS.md.
//
//   QT_QPA_PLATFORM=offscreen bench_live_output [--engine podman|docker]
#include "BenchTable.h"
#include "history/HistoryStore.h"
#include "McpStdioClient.h"
#include "ui/models/RunsModel.h"
#include "ui/pages/RunDetailPane.h"
#include "ui/pages/RunsPage.h"

#include <QApplication>
#include <QDateTime>
#include <QFile>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSet>
#include <QSysInfo>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>

#include <cstdio>
#include <memory>
#include <unistd.h>

using namespace csm;

namespace {

// Each streaming measurement is noisy (the engine's own work shares the cores): a few of each.
constexpr int kStreamingRuns = 5;

QTextStream& out()
{
    static QTextStream stream(stdout);
    return stream;
}

QJsonObject callParams(const QString& code, int timeoutSeconds = 60)
{
    return {{QStringLiteral("name"), QStringLiteral("run_python_code")},
            {QStringLiteral("arguments"),
             QJsonObject{{QStringLiteral("code"), code},
                         {QStringLiteral("timeout_seconds"), timeoutSeconds}}}};
}

// The CPU time process `pid` has used so far, in ms (utime + stime of /proc/PID/stat).
double cpuMs(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return -1;
    const QByteArray text = stat.readAll();
    // After the command's name, which may hold spaces: fields 14 and 15 (utime, stime).
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    const double ticks = fields.value(11).toDouble() + fields.value(12).toDouble();
    return ticks * 1000.0 / double(::sysconf(_SC_CLK_TCK));
}

std::unique_ptr<McpStdioClient> startServer(const QString& engine, const QString& dataDir,
                                            const QStringList& more = {})
{
    auto client = std::make_unique<McpStdioClient>();
    QStringList arguments{QStringLiteral("--engine"),     engine,
                          QStringLiteral("--data-dir"),   dataDir,
                          QStringLiteral("--pool"),       QStringLiteral("1"),
                          QStringLiteral("--output-cap"), QStringLiteral("64m")};
    arguments += more;
    if (!client->start(arguments, QProcessEnvironment::systemEnvironment()) ||
        client->initialize().isEmpty())
        return nullptr;
    // One call first: the image is checked and the pool is warm before anything is measured.
    client->callTool(QStringLiteral("run_python_code"),
                     {{QStringLiteral("code"), QStringLiteral("print(1)")}}, 120'000);
    return client;
}

// Print to pane: the latency of each line "t=MS i=N" the first time the pane shows it.
std::vector<double> paneLatencies(McpStdioClient& server, const QString& historyPath)
{
    std::vector<double> latencies;
    auto opened = HistoryStore::open(historyPath);
    if (!opened)
        return latencies;
    const std::unique_ptr<HistoryStore> store = *std::move(opened);
    RunsPage page(*store);
    page.resize(1280, 800);
    page.show();
    const int request = server.sendRequest(
        QStringLiteral("tools/call"),
        callParams(QStringLiteral("import time\n"
                                  "for i in range(100):\n"
                                  "    print(f't={time.time() * 1000:.1f} i={i}', flush=True)\n"
                                  "    time.sleep(0.1)\n")));
    auto* model = page.findChild<RunsModel*>(QStringLiteral("model"));
    auto* table = page.findChild<QTableView*>(QStringLiteral("table"));
    auto* pane = page.findChild<QPlainTextEdit*>(QStringLiteral("stdout"));
    const bool running = QTest::qWaitFor(
        [&] {
            return model->rowCount() > 0 &&
                   model->index(0, RunsModel::Status).data().toString() == QLatin1String("running");
        },
        30'000);
    if (!running) {
        std::fprintf(stderr, "no running call in the table (%d rows, the first %s)\n",
                     model->rowCount(),
                     qPrintable(model->index(0, RunsModel::Status).data().toString()));
        return latencies;
    }
    table->setCurrentIndex(model->index(0, RunsModel::Language));
    QSet<int> seen;
    static const QRegularExpression line(QStringLiteral("^t=([0-9.]+) i=([0-9]+)$"),
                                         QRegularExpression::MultilineOption);
    QObject::connect(pane, &QPlainTextEdit::textChanged, pane, [&] {
        const double now = double(QDateTime::currentMSecsSinceEpoch());
        auto matches = line.globalMatch(pane->toPlainText());
        while (matches.hasNext()) {
            const auto match = matches.next();
            const int index = match.captured(2).toInt();
            if (seen.contains(index))
                continue;
            seen.insert(index);
            latencies.push_back(now - match.captured(1).toDouble());
        }
    });
    // Waited for with the event loop running: the page reads the history on its timers.
    std::optional<QJsonObject> response;
    if (!QTest::qWaitFor(
            [&] {
                response = server.waitForResponse(request, 0);
                return response.has_value();
            },
            60'000))
        std::fputs("the call did not end within a minute\n", stderr);
    // The lines of the last interval came with the end, not live: not counted.
    while (latencies.size() > 90)
        latencies.pop_back();
    return latencies;
}

// The server's CPU time during a call that prints 10,000 lines a second for 10 s.
double streamingCpuMs(McpStdioClient& server, qint64* printedBytes)
{
    const QString program =
        QStringLiteral("import time\n"
                       "start = time.time()\n"
                       "n = 0\n"
                       "while time.time() - start < 10:\n"
                       "    for _ in range(100):\n"
                       "        print('line', n, 'x' * 60)\n"
                       "        n += 1\n"
                       "    time.sleep(max(0, start + n / 10000 - time.time()))\n");
    const double before = cpuMs(server.pid());
    const QJsonObject result =
        server.callTool(QStringLiteral("run_python_code"),
                        callParams(program).value(QStringLiteral("arguments")).toObject(), 120'000);
    const double after = cpuMs(server.pid());
    *printedBytes = result.value(QStringLiteral("structuredContent"))
                        .toObject()
                        .value(QStringLiteral("stdout"))
                        .toString()
                        .size();
    return after - before;
}

Timing streaming(McpStdioClient& server, const QString& name)
{
    std::vector<double> cpu;
    qint64 bytes = 0;
    for (int i = 0; i < kStreamingRuns; ++i)
        cpu.push_back(streamingCpuMs(server, &bytes));
    return {name, cpu, QStringLiteral("%1 MB printed per run").arg(double(bytes) / 1e6, 0, 'f', 1)};
}

} // namespace

int main(int argc, char* argv[])
{
    QApplication app(argc, argv);
    QString engine = QStringLiteral("podman");
    const QStringList arguments = app.arguments();
    for (qsizetype i = 1; i + 1 < arguments.size(); i += 2) {
        if (arguments.at(i) == QLatin1String("--engine"))
            engine = arguments.at(i + 1);
    }
    std::vector<Timing> timings;
    QTemporaryDir withHistory;
    QTemporaryDir withoutHistory;
    {
        auto server = startServer(engine, withHistory.path());
        if (!server) {
            std::fputs("the server did not start\n", stderr);
            return 1;
        }
        const std::vector<double> latencies =
            paneLatencies(*server, withHistory.filePath(QStringLiteral("history.sqlite")));
        if (latencies.empty()) {
            std::fputs("no line reached the pane\n", stderr);
            return 1;
        }
        timings.push_back({QStringLiteral("print to detail pane (one line every 100 ms)"),
                           latencies,
                           QStringLiteral("p95 %1 ms, %2 lines")
                               .arg(percentile(latencies, 0.95), 0, 'f', 0)
                               .arg(latencies.size())});
        timings.push_back(
            streaming(*server, QStringLiteral("server CPU, 10,000 lines/s for 10 s, live output")));
    }
    {
        auto server = startServer(engine, withoutHistory.path(), {QStringLiteral("--no-history")});
        if (!server) {
            std::fputs("the server did not start\n", stderr);
            return 1;
        }
        timings.push_back(streaming(
            *server, QStringLiteral("server CPU, the same, --no-history (no live output)")));
    }
    out() << "Live output on " << engine << " (" << QSysInfo::prettyProductName() << ", "
          << QSysInfo::currentCpuArchitecture() << ")\n";
    printTimings(out(), timings);
    return 0;
}
