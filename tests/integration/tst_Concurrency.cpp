// A flood of calls against the real server and a real engine (CSM_TEST_ENGINE): every call is
// answered, and never more sandboxes run at once than --max-running, as the programs themselves
// see it (their run times overlap at most that much) and as the engine sees it (its list of
// running containers, polled from another thread). The queue beyond the cap is bounded, reports
// progress, and honours cancellation and the call's timeout.
#include "CallResult.h"
#include "HttpTestServer.h"
#include "McpStdioClient.h"
#include "RawHttpClient.h"
#include "ServerExit.h"
#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTest>
#include <QThread>

#include <algorithm>
#include <atomic>
#include <memory>

using namespace callresult;

namespace {

constexpr int kCalls = 64;
constexpr int kCap = 3;

// Each program says when it ran, by the clock the host and every container share.
QString timedProgram(int index)
{
    return QStringLiteral("import json, time\nstart = time.time()\ntime.sleep(0.5)\n"
                          "print(json.dumps({'i': %1, 'start': start, 'end': time.time()}))\n")
        .arg(index);
}

struct Interval
{
    double start = 0;
    double end = 0;
};

// The most intervals that ever overlap.
int maxOverlap(const QList<Interval>& intervals)
{
    QList<std::pair<double, int>> edges;
    for (const Interval& interval : intervals) {
        edges.append({interval.start, +1});
        edges.append({interval.end, -1});
    }
    // At the same instant an end comes before a start: touching is not overlapping.
    std::sort(edges.begin(), edges.end());
    int current = 0;
    int most = 0;
    for (const auto& [time, change] : edges) {
        current += change;
        most = std::max(most, current);
    }
    return most;
}

// Polls the engine's list of running containers of one server until stopped, and keeps the
// largest count it saw. A thread of its own: the test's own thread blocks on its client.
class RunningContainerPoller final : public QThread
{
public:
    explicit RunningContainerPoller(qint64 serverPid)
        : m_label(pidLabel(serverPid))
    {}

    void stop()
    {
        m_stop = true;
        wait();
    }
    int most() const { return m_most; }
    int polls() const { return m_polls; }

protected:
    void run() override
    {
        while (!m_stop) {
            QProcess ps;
            // Without -a: running containers only.
            ps.start(TestEngine::name(),
                     {QStringLiteral("ps"), QStringLiteral("--filter"),
                      QStringLiteral("label=") + m_label, QStringLiteral("--format"),
                      QStringLiteral("{{.Names}}")});
            if (ps.waitForFinished(10'000) && ps.exitCode() == 0) {
                const int count = int(QString::fromUtf8(ps.readAllStandardOutput())
                                          .split(u'\n', Qt::SkipEmptyParts)
                                          .size());
                m_most = std::max(m_most.load(), count);
                ++m_polls;
            }
            msleep(50);
        }
    }

private:
    QString m_label;
    std::atomic_bool m_stop = false;
    std::atomic_int m_most = 0;
    std::atomic_int m_polls = 0;
};

QJsonObject toolCall(const QString& program, double timeoutSeconds = 60,
                     const QJsonValue& progressToken = QJsonValue::Undefined)
{
    QJsonObject params{{QStringLiteral("name"), QStringLiteral("run_python_code")},
                       {QStringLiteral("arguments"),
                        QJsonObject{{QStringLiteral("code"), program},
                                    {QStringLiteral("timeout_seconds"), timeoutSeconds}}}};
    if (!progressToken.isUndefined())
        params.insert(QStringLiteral("_meta"),
                      QJsonObject{{QStringLiteral("progressToken"), progressToken}});
    return params;
}

bool isProgressWhileWaiting(const QJsonObject& message)
{
    return message.value(QLatin1String("method")).toString() ==
               QLatin1String("notifications/progress") &&
           message.value(QLatin1String("params"))
               .toObject()
               .value(QLatin1String("message"))
               .toString()
               .startsWith(QLatin1String("Waiting for a free sandbox: "));
}

// Checks the answers of a flood: each call's own program ran and said so, within the cap.
void checkFlood(const QList<QJsonObject>& results)
{
    QCOMPARE(results.size(), kCalls);
    QList<Interval> intervals;
    for (int i = 0; i < kCalls; ++i) {
        const QJsonObject& result = results.at(i);
        QVERIFY2(!isError(result), describe(result).constData());
        const QJsonObject seen = printedJson(result);
        QCOMPARE(seen.value(QLatin1String("i")).toInt(-1), i);
        intervals.append({seen.value(QLatin1String("start")).toDouble(),
                          seen.value(QLatin1String("end")).toDouble()});
    }
    const int overlap = maxOverlap(intervals);
    QVERIFY2(overlap <= kCap, qPrintable(QStringLiteral("%1 programs ran at once").arg(overlap)));
    // And the cap was used: the calls did not run one at a time.
    QCOMPARE(overlap, kCap);
}

} // namespace

class TestConcurrency final : public QObject
{
    Q_OBJECT

private:
    static std::unique_ptr<McpStdioClient> startStdioServer(const QStringList& arguments)
    {
        return McpStdioClient::startOnTestEngine(QStringList{QStringLiteral("--verbose"),
                                                             QStringLiteral("--pool"),
                                                             QStringLiteral("0")} +
                                                 arguments);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(TestEngine::hasLocalImage(QStringLiteral("code-sandbox-python:latest")),
                 "the python sandbox image must be built (containers/build-images)");
    }

    void floodOverStdioStaysWithinTheCap()
    {
        auto server = startStdioServer({QStringLiteral("--max-running"), QString::number(kCap)});
        QVERIFY(server);
        RunningContainerPoller poller(server->pid());
        poller.start();
        QList<int> ids;
        for (int i = 0; i < kCalls; ++i) {
            ids << server->sendRequest(
                QStringLiteral("tools/call"),
                toolCall(timedProgram(i), 120, QStringLiteral("p%1").arg(i)));
        }
        QList<QJsonObject> results;
        for (const int id : std::as_const(ids)) {
            const auto response = server->waitForResponse(id, 180'000);
            QVERIFY2(response, "a call got no answer");
            results << response->value(QLatin1String("result")).toObject();
        }
        poller.stop();
        checkFlood(results);
        QVERIFY(poller.polls() > 10);
        QVERIFY2(poller.most() <= kCap,
                 qPrintable(QStringLiteral("the engine ran %1 containers").arg(poller.most())));
        // The calls at the back of the queue heard where they stood.
        QVERIFY(server->waitForMessage(isProgressWhileWaiting, 1'000));
        expectCleanExit(*server);
    }

    void floodOverHttpStaysWithinTheCap()
    {
        HttpTestServer server;
        QVERIFY(server.start({QStringLiteral("--max-running"), QString::number(kCap)}));
        RawHttpClient setup(server.port());
        QVERIFY(setup.connectToServer());
        const QByteArray session = server.openSession(setup);
        QVERIFY(!session.isEmpty());

        RunningContainerPoller poller(server.pid());
        poller.start();
        // One connection per call, all sent before any answer is read.
        std::vector<std::unique_ptr<RawHttpClient>> clients;
        for (int i = 0; i < kCalls; ++i) {
            auto client = std::make_unique<RawHttpClient>(server.port());
            QVERIFY(client->connectToServer());
            QJsonObject request{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                {QStringLiteral("id"), i},
                                {QStringLiteral("method"), QStringLiteral("tools/call")},
                                {QStringLiteral("params"), toolCall(timedProgram(i), 120)}};
            QVERIFY(client->send(server.postRequest(request, session)));
            clients.push_back(std::move(client));
        }
        QList<QJsonObject> results;
        for (int i = 0; i < kCalls; ++i) {
            const auto head = clients.at(size_t(i))->readHead(180'000);
            QVERIFY2(head && head->status == 200, qPrintable(clients.at(size_t(i))->lastError()));
            QJsonObject result;
            for (const RawHttpClient::Event& event :
                 clients.at(size_t(i))->readEventsUntilEnd(180'000)) {
                const QJsonObject message = event.json();
                if (message.value(QLatin1String("id")).toInt(-1) == i)
                    result = message.value(QLatin1String("result")).toObject();
            }
            results << result;
        }
        poller.stop();
        checkFlood(results);
        QVERIFY(poller.polls() > 10);
        QVERIFY2(poller.most() <= kCap,
                 qPrintable(QStringLiteral("the engine ran %1 containers").arg(poller.most())));
        QVERIFY(server.terminate(15'000));
        QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(pidLabel(server.pid()), 5'000),
                 QStringList());
    }

    void aFullQueueRefusesAtOnce()
    {
        auto server = startStdioServer({QStringLiteral("--max-running"), QStringLiteral("1"),
                                        QStringLiteral("--max-queued"), QStringLiteral("2")});
        QVERIFY(server);
        const QString slow = QStringLiteral("import time\ntime.sleep(3)\nprint('done')\n");
        QList<int> accepted;
        for (int i = 0; i < 3; ++i) // one runs, two wait
            accepted << server->sendRequest(QStringLiteral("tools/call"), toolCall(slow));
        QElapsedTimer clock;
        clock.start();
        const QJsonObject refused =
            server->callTool(QStringLiteral("run_python_code"), code(QStringLiteral("print(1)")));
        QVERIFY2(clock.elapsed() < 2'000, "a refusal must not wait for a sandbox");
        QVERIFY(isError(refused));
        QVERIFY2(text(refused).contains(QLatin1String("Too many calls at once")),
                 qPrintable(text(refused)));
        QVERIFY(text(refused).contains(QLatin1String("--max-queued")));
        // Those that were taken all run, one after the other.
        for (const int id : std::as_const(accepted)) {
            const auto response = server->waitForResponse(id, 60'000);
            QVERIFY(response);
            QCOMPARE(stdoutOf(response->value(QLatin1String("result")).toObject()),
                     QStringLiteral("done\n"));
        }
        expectCleanExit(*server);
    }

    void aWaitingCallHonoursItsTimeout()
    {
        auto server = startStdioServer({QStringLiteral("--max-running"), QStringLiteral("1")});
        QVERIFY(server);
        const int slow = server->sendRequest(
            QStringLiteral("tools/call"),
            toolCall(QStringLiteral("import time\ntime.sleep(6)\nprint('slow')\n")));
        QTest::qWait(500);
        QElapsedTimer clock;
        clock.start();
        const QJsonObject waited =
            server->callTool(QStringLiteral("run_python_code"),
                             QJsonObject{{QStringLiteral("code"), QStringLiteral("print('never')")},
                                         {QStringLiteral("timeout_seconds"), 1}});
        QVERIFY2(clock.elapsed() < 4'000, "the waiting call outlived its timeout");
        QVERIFY(isError(waited));
        QVERIFY2(text(waited).contains(QLatin1String("timed out after 1 s waiting for a free "
                                                     "sandbox; the program never ran")),
                 qPrintable(text(waited)));
        const auto first = server->waitForResponse(slow, 30'000);
        QVERIFY(first);
        QCOMPARE(stdoutOf(first->value(QLatin1String("result")).toObject()),
                 QStringLiteral("slow\n"));
        expectCleanExit(*server);
    }

    void aWaitingCallCanBeCancelled()
    {
        auto server = startStdioServer({QStringLiteral("--max-running"), QStringLiteral("1")});
        QVERIFY(server);
        const int slow = server->sendRequest(
            QStringLiteral("tools/call"),
            toolCall(QStringLiteral("import time\ntime.sleep(2)\nprint('slow')\n")));
        const int waiting = server->sendRequest(
            QStringLiteral("tools/call"), toolCall(QStringLiteral("print('should not run')")));
        QTest::qWait(300);
        server->sendNotification(QStringLiteral("notifications/cancelled"),
                                 {{QStringLiteral("requestId"), waiting}});
        const auto first = server->waitForResponse(slow, 30'000);
        QVERIFY(first);
        // No answer for the cancelled call, and no container was ever started for it: the
        // log names one container only.
        QVERIFY(!server->receivesResponseWithin(waiting, 1'500));
        QCOMPARE(int(server->standardError().count(QStringLiteral("running code-sandbox-"))), 1);
        // The slot it would have had is free again.
        const QJsonObject after =
            server->callTool(QStringLiteral("run_python_code"), code(QStringLiteral("print(2)")));
        QCOMPARE(stdoutOf(after), QStringLiteral("2\n"));
        expectCleanExit(*server);
    }
};

QTEST_GUILESS_MAIN(TestConcurrency)
#include "tst_Concurrency.moc"
