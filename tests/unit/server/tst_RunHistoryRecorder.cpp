// RunHistoryRecorder against a real HistoryStore in a temporary folder: what each way a call can
// end leaves in the history, driven both directly (as RunCodeCall reports) and through the real
// RunCodeTool with an engine that does not exist (so no container ever runs).
#include "core/RunFilesStore.h"
#include "history/HistoryFieldCap.h"
#include "history/HistoryPruner.h"
#include "history/HistoryStore.h"
#include "mcp/CallContext.h"
#include "mcp/ToolCall.h"
#include "runtime/PodmanRuntime.h"
#include "sandbox/ExecutionResult.h"
#include "sandbox/SandboxRunner.h"
#include "server/RunHistoryRecorder.h"
#include "tools/RunCodeTool.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <sys/time.h>

using namespace csm;

Q_DECLARE_METATYPE(csm::ExecutionResult::Outcome)
Q_DECLARE_METATYPE(csm::RunStatus)

namespace {

const QString kMissingEngine = QStringLiteral("/nonexistent/csm-unit-test/podman");
// No process has this pid (Linux pids stay below 2^22).
constexpr qint64 kDeadPid = 99'999'999;

RunHistoryRecorder::Server thisServer()
{
    return {QStringLiteral("instance-under-test"), QCoreApplication::applicationPid(),
            QSysInfo::machineHostName()};
}

CallContext context()
{
    CallContext context;
    context.transport = QStringLiteral("stdio");
    context.clientName = QStringLiteral("unit-client");
    context.clientVersion = QStringLiteral("9.8");
    context.tool = QStringLiteral("run_python_code");
    return context;
}

RunObserver::Start start(const QString& code = QStringLiteral("print(1)"))
{
    RunObserver::Start start;
    start.context = context();
    start.language = QStringLiteral("python");
    start.image = QStringLiteral("localhost/code-sandbox-python:latest");
    start.code = code;
    start.limits = QJsonObject{{QStringLiteral("timeout_ms"), 30000}};
    return start;
}

} // namespace

class tst_RunHistoryRecorder final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void startIsRecordedAsRunning();
    void statusMapping_data();
    void statusMapping();
    void failedCallIsAnError();
    void unknownHandleIsIgnored();
    void filesInAndOutAreRecorded();

    void printedOutputAndStopRequestsWhileRunning();
    void toolPathInvalidArguments();
    void toolPathEngineError();
    void toolPathCancelled();
    void toolPathDestroyedCallIsCancelled();
    void toolWithoutObserverRuns();

    void openMarksInterruptedAndPrunes();
    void openFailsWithAReason();

    void eachTextIsKeptUpToItsCap();
    void toolPathInvalidArgumentsKeepACappedCode();
    void theSizeLimitHoldsAfterEachRun();
    void theFilesLimitHoldsAfterEachRun();
    void prunesOnATimer();
    void newConfigAppliesToTheNextRuns();

private:
    std::unique_ptr<RunHistoryRecorder> makeRecorder(const RunHistoryRecorder::Config& config = {});
    std::unique_ptr<SandboxRunner> makeRunner();
    RunCodeTool::Config pythonConfig() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_path;
};

void tst_RunHistoryRecorder::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_path = m_dir->filePath(QStringLiteral("history.sqlite"));
}

void tst_RunHistoryRecorder::cleanup()
{
    m_dir.reset();
}

std::unique_ptr<RunHistoryRecorder>
tst_RunHistoryRecorder::makeRecorder(const RunHistoryRecorder::Config& config)
{
    auto recorder = RunHistoryRecorder::open(m_path, config, thisServer());
    if (!recorder) {
        qWarning().noquote() << recorder.error();
        return nullptr;
    }
    return *std::move(recorder);
}

std::unique_ptr<SandboxRunner> tst_RunHistoryRecorder::makeRunner()
{
    return std::make_unique<SandboxRunner>(std::make_unique<PodmanRuntime>(kMissingEngine),
                                           SandboxPolicy{},
                                           SandboxFiles{QStringLiteral("/nonexistent/csm-launch"),
                                                        QStringLiteral("/nonexistent/csm.json"),
                                                        {}});
}

RunCodeTool::Config tst_RunHistoryRecorder::pythonConfig() const
{
    RunCodeTool::Config config;
    config.language = Language::Python;
    config.image = QStringLiteral("localhost/code-sandbox-python:latest");
    return config;
}

void tst_RunHistoryRecorder::startIsRecordedAsRunning()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    const qint64 handle = recorder->runStarted(start(QStringLiteral("print('hi')")));
    QVERIFY(handle > 0);

    const auto run = recorder->store().queries().get(handle);
    QVERIFY(run);
    QCOMPARE(run->status, RunStatus::Running);
    QCOMPARE(run->serverInstance, QStringLiteral("instance-under-test"));
    QCOMPARE(run->serverPid, QCoreApplication::applicationPid());
    QCOMPARE(run->hostName, QSysInfo::machineHostName());
    QCOMPARE(run->transport, QStringLiteral("stdio"));
    QCOMPARE(run->sessionId, QString());
    QCOMPARE(run->clientName, QStringLiteral("unit-client"));
    QCOMPARE(run->clientVersion, QStringLiteral("9.8"));
    QCOMPARE(run->tool, QStringLiteral("run_python_code"));
    QCOMPARE(run->language, QStringLiteral("python"));
    QCOMPARE(run->image, QStringLiteral("localhost/code-sandbox-python:latest"));
    QCOMPARE(run->code, QStringLiteral("print('hi')"));
    QCOMPARE(run->limits.value(QLatin1String("timeout_ms")).toInt(), 30000);
    QVERIFY(!run->endedAt.isValid());
    QVERIFY(!run->exitCode);
}

void tst_RunHistoryRecorder::statusMapping_data()
{
    QTest::addColumn<ExecutionResult::Outcome>("outcome");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<bool>("oomKilled");
    QTest::addColumn<QString>("engineError");
    QTest::addColumn<RunStatus>("status");
    QTest::addColumn<int>("recordedExit"); // -1: none
    QTest::addColumn<QString>("errorMessage");

    using O = ExecutionResult::Outcome;
    QTest::newRow("exit 0") << O::Exited << 0 << false << QString() << RunStatus::Ok << 0
                            << QString();
    QTest::newRow("exit 3") << O::Exited << 3 << false << QString() << RunStatus::Error << 3
                            << QString();
    QTest::newRow("signal 137") << O::Exited << 137 << false << QString() << RunStatus::Error << 137
                                << QString();
    QTest::newRow("oom") << O::Exited << 137 << true << QString() << RunStatus::Oom << 137
                         << QString();
    QTest::newRow("oom at the deadline")
        << O::TimedOut << -1 << true << QString() << RunStatus::Oom << -1 << QString();
    QTest::newRow("timeout") << O::TimedOut << -1 << false << QString() << RunStatus::Timeout << -1
                             << QString();
    QTest::newRow("cancelled") << O::Cancelled << -1 << false << QString() << RunStatus::Cancelled
                               << -1 << QString();
    QTest::newRow("engine error") << O::EngineError << -1 << false
                                  << QStringLiteral("podman could not be started")
                                  << RunStatus::EngineError << -1
                                  << QStringLiteral("podman could not be started");
}

void tst_RunHistoryRecorder::statusMapping()
{
    QFETCH(ExecutionResult::Outcome, outcome);
    QFETCH(int, exitCode);
    QFETCH(bool, oomKilled);
    QFETCH(QString, engineError);
    QFETCH(RunStatus, status);
    QFETCH(int, recordedExit);
    QFETCH(QString, errorMessage);

    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    const qint64 handle = recorder->runStarted(start());
    QVERIFY(handle > 0);

    ExecutionResult result;
    result.outcome = outcome;
    result.exitCode = exitCode;
    result.oomKilled = oomKilled;
    result.engineError = engineError;
    result.durationMs = 1234;
    result.stdoutBytes = QByteArrayLiteral("out \xe2\x82\xac\n");
    result.stderrBytes = QByteArrayLiteral("err\n");
    result.stdoutTruncated = true;
    recorder->runEnded(handle, result);

    const auto run = recorder->store().queries().get(handle);
    QVERIFY(run);
    QCOMPARE(run->status, status);
    QCOMPARE(run->exitCode.value_or(-1), recordedExit);
    QCOMPARE(run->errorMessage, errorMessage);
    QCOMPARE(run->durationMs, 1234);
    QCOMPARE(run->stdoutText, QStringLiteral("out \u20ac\n"));
    QCOMPARE(run->stderrText, QStringLiteral("err\n"));
    QCOMPARE(run->stdoutTruncated, true);
    QCOMPARE(run->stderrTruncated, false);
    QVERIFY(run->endedAt.isValid());
}

void tst_RunHistoryRecorder::failedCallIsAnError()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    const qint64 handle = recorder->runStarted(start());
    recorder->runFailed(handle, QStringLiteral("Invalid arguments: no code"));
    const auto run = recorder->store().queries().get(handle);
    QVERIFY(run);
    QCOMPARE(run->status, RunStatus::Error);
    QCOMPARE(run->errorMessage, QStringLiteral("Invalid arguments: no code"));
    QVERIFY(!run->exitCode);
}

void tst_RunHistoryRecorder::unknownHandleIsIgnored()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    recorder->runEnded(0, ExecutionResult{}); // "not recorded": nothing to do, nothing logged
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("run 4242")));
    recorder->runEnded(4242, ExecutionResult{});
    QCOMPARE(*recorder->store().queries().count({}), 0);
}

void tst_RunHistoryRecorder::filesInAndOutAreRecorded()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    RunObserver::Start started = start();
    started.filesKey = QStringLiteral("0f6e5a3c-1b2d-4e5f-8a9b-0c1d2e3f4a5b");
    started.inputFiles = {{QStringLiteral("data/in.csv"), QByteArrayLiteral("a,b\n1,2\n")}};
    const qint64 handle = recorder->runStarted(started);
    QVERIFY(handle > 0);

    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::Exited;
    result.exitCode = 0;
    OutputFile chart{QStringLiteral("chart.png"),
                     2048,
                     QStringLiteral("image/png"),
                     QStringLiteral("/data/run-files/k/out/chart.png"),
                     {}};
    OutputFile link{QStringLiteral("link"),
                    0,
                    QStringLiteral("application/octet-stream"),
                    {},
                    QStringLiteral("a symbolic link: not followed")};
    result.outputFiles = {chart, link};
    recorder->runEnded(handle, result);

    const auto run = recorder->store().queries().get(handle);
    QVERIFY(run);
    QCOMPARE(run->filesKey, started.filesKey);
    QCOMPARE(run->outputFileCount, 1);
    QCOMPARE(run->files.size(), 3);
    const RunFileRecord& input = run->files.at(0);
    QCOMPARE(input.direction, RunFileRecord::Direction::Input);
    QCOMPARE(input.path, QStringLiteral("data/in.csv"));
    QCOMPARE(input.sizeBytes, 8);
    QCOMPARE(input.mimeType, QStringLiteral("text/plain"));
    QCOMPARE(input.storedPath, m_dir->filePath(QStringLiteral("run-files/") + started.filesKey +
                                               QStringLiteral("/in/data/in.csv")));
    QCOMPARE(run->files.at(1), (RunFileRecord{RunFileRecord::Direction::Output,
                                              chart.path,
                                              chart.sizeBytes,
                                              chart.mimeType,
                                              chart.storedPath,
                                              {}}));
    QCOMPARE(run->files.at(2).skipReason, link.skipReason);
    QVERIFY(run->files.at(2).storedPath.isEmpty());
}

void tst_RunHistoryRecorder::toolPathInvalidArguments()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    const auto runner = makeRunner();
    RunCodeTool tool(*runner, pythonConfig(), recorder.get());
    QObject owner;
    ToolCall* call = tool.start({{QStringLiteral("timeout_seconds"), 5}}, context(), &owner);
    QSignalSpy finished(call, &ToolCall::finished);
    QVERIFY(finished.wait(5000));

    const QList<RunRecord> runs = *recorder->store().queries().list({});
    QCOMPARE(runs.size(), 1);
    QCOMPARE(runs.first().status, RunStatus::Error);
    QVERIFY2(runs.first().errorMessage.contains(QLatin1String("Invalid arguments")),
             qPrintable(runs.first().errorMessage));
    QCOMPARE(runs.first().tool, QStringLiteral("run_python_code"));
    QCOMPARE(runs.first().clientName, QStringLiteral("unit-client"));
}

void tst_RunHistoryRecorder::toolPathEngineError()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    SandboxPolicy policy;
    const auto runner = makeRunner();
    RunCodeTool tool(*runner, pythonConfig(), recorder.get());
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("could not be started")));
    QObject owner;
    ToolCall* call = tool.start({{QStringLiteral("code"), QStringLiteral("print(2)")},
                                 {QStringLiteral("timeout_seconds"), 7}},
                                context(), &owner);
    // Recorded as running at once, before anything ran.
    QCOMPARE(recorder->store().queries().list({})->value(0).status, RunStatus::Running);
    QSignalSpy finished(call, &ToolCall::finished);
    QVERIFY(finished.wait(10000));

    const QList<RunRecord> runs = *recorder->store().queries().list({});
    QCOMPARE(runs.size(), 1);
    const RunRecord& run = runs.first();
    QCOMPARE(run.status, RunStatus::EngineError);
    QVERIFY2(run.errorMessage.contains(kMissingEngine), qPrintable(run.errorMessage));
    QCOMPARE(run.code, QStringLiteral("print(2)"));
    QCOMPARE(run.language, QStringLiteral("python"));
    QCOMPARE(run.limits.value(QLatin1String("timeout_ms")).toInt(), 7000);
    QCOMPARE(run.limits.value(QLatin1String("memory_bytes")).toInteger(), policy.memoryBytes);
    QCOMPARE(run.limits.value(QLatin1String("cpus")).toDouble(), policy.cpus);
    QCOMPARE(run.limits.value(QLatin1String("pids_limit")).toInt(), policy.pidsLimit);
    QCOMPARE(run.limits.value(QLatin1String("tmpfs_bytes")).toInteger(), policy.tmpfsBytes);
    QCOMPARE(run.limits.value(QLatin1String("network")).toString(), policy.network);
    QCOMPARE(run.limits.value(QLatin1String("output_cap_bytes")).toInteger(),
             policy.outputCapBytes);
}

// What a running run printed goes to the history for live views; a stop asked for through the
// history (the app, another connection) reaches the run's stopper, once, and only while it runs.
void tst_RunHistoryRecorder::printedOutputAndStopRequestsWhileRunning()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    const qint64 handle = recorder->runStarted(start(QStringLiteral("while True: print(1)")));
    const qint64 other = recorder->runStarted(start(QStringLiteral("print(2)")));
    QVERIFY(handle > 0 && other > 0);
    recorder->runPrinted(handle, QStringLiteral("1\n1\n"), QStringLiteral("warning\n"));
    QCOMPARE(recorder->store().queries().get(handle)->stdoutText, QStringLiteral("1\n1\n"));
    QCOMPARE(recorder->store().queries().get(handle)->stderrText, QStringLiteral("warning\n"));

    int stops = 0;
    int otherStops = 0;
    recorder->watchForStop(handle, [&] { ++stops; });
    recorder->watchForStop(other, [&] { ++otherStops; });
    auto app = HistoryStore::open(m_path);
    QVERIFY(app);
    QVERIFY((*app)->stopRequests().request(handle));
    QTRY_COMPARE_WITH_TIMEOUT(stops, 1, 5000);
    QTest::qWait(3 * RunHistoryRecorder::kStopPollIntervalMs);
    QCOMPARE(stops, 1);
    QCOMPARE(otherStops, 0);

    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::Cancelled;
    result.stoppedByUser = true;
    result.stdoutBytes = "1\n1\n1\n";
    recorder->runEnded(handle, result);
    const auto ended = recorder->store().queries().get(handle);
    QCOMPARE(ended->status, RunStatus::Cancelled);
    QCOMPARE(ended->stdoutText, QStringLiteral("1\n1\n1\n"));
    QVERIFY2(ended->errorMessage.contains(QLatin1String("Code Sandbox app")),
             qPrintable(ended->errorMessage));
    // Once ended, neither its output nor a stop can be recorded any more.
    recorder->runPrinted(handle, QStringLiteral("late"), QString());
    QCOMPARE(recorder->store().queries().get(handle)->stdoutText, QStringLiteral("1\n1\n1\n"));
    QVERIFY(!(*app)->stopRequests().request(handle));
    recorder->runEnded(other, {});
    QCOMPARE(otherStops, 0);
}

void tst_RunHistoryRecorder::toolPathCancelled()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    const auto runner = makeRunner();
    RunCodeTool tool(*runner, pythonConfig(), recorder.get());
    QObject owner;
    ToolCall* call =
        tool.start({{QStringLiteral("code"), QStringLiteral("print(3)")}}, context(), &owner);
    QSignalSpy cancelled(call, &ToolCall::cancelled);
    call->cancel();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.size(), 1, 5000);
    QCOMPARE(recorder->store().queries().list({})->value(0).status, RunStatus::Cancelled);

    // An invalid call cancelled before its answer is cancelled too.
    ToolCall* invalid = tool.start({}, context(), &owner);
    QSignalSpy invalidCancelled(invalid, &ToolCall::cancelled);
    invalid->cancel();
    QTRY_COMPARE_WITH_TIMEOUT(invalidCancelled.size(), 1, 5000);
    QCOMPARE(recorder->store().queries().list({})->value(0).status, RunStatus::Cancelled);
}

void tst_RunHistoryRecorder::toolPathDestroyedCallIsCancelled()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    const auto runner = makeRunner();
    RunCodeTool tool(*runner, pythonConfig(), recorder.get());
    {
        QObject owner;
        tool.start({{QStringLiteral("code"), QStringLiteral("print(4)")}}, context(), &owner);
        QCOMPARE(recorder->store().queries().list({})->value(0).status, RunStatus::Running);
    } // the server exiting past its shutdown budget deletes calls still running
    QCOMPARE(recorder->store().queries().list({})->value(0).status, RunStatus::Cancelled);
}

void tst_RunHistoryRecorder::toolWithoutObserverRuns()
{
    const auto runner = makeRunner();
    RunCodeTool tool(*runner, pythonConfig());
    QObject owner;
    ToolCall* call = tool.start({}, context(), &owner);
    QSignalSpy finished(call, &ToolCall::finished);
    QVERIFY(finished.wait(5000));
    QVERIFY(!QFileInfo::exists(m_path));
}

void tst_RunHistoryRecorder::openMarksInterruptedAndPrunes()
{
    QList<qint64> ended;
    qint64 orphan = 0;
    qint64 alive = 0;
    {
        auto opened = HistoryStore::open(m_path);
        QVERIFY2(opened, qPrintable(opened.error()));
        const std::unique_ptr<HistoryStore> store = *std::move(opened);
        RunRecord run;
        run.hostName = QSysInfo::machineHostName();
        run.serverInstance = QStringLiteral("dead-server");
        run.serverPid = kDeadPid;
        run.tool = QStringLiteral("run_python_code");
        for (int i = 0; i < 5; ++i) {
            const auto id = store->ledger().recordStart(run);
            QVERIFY(id);
            RunRecord end;
            end.status = RunStatus::Ok;
            QVERIFY(store->ledger().recordEnd(*id, end));
            ended << *id;
        }
        orphan = store->ledger().recordStart(run).valueOr(0);
        run.serverInstance = QStringLiteral("this-process");
        run.serverPid = QCoreApplication::applicationPid();
        alive = store->ledger().recordStart(run).valueOr(0);
        QVERIFY(orphan > 0 && alive > 0);
    }

    RunHistoryRecorder::Config config;
    config.retention = RetentionPolicy{3, 0};
    auto recorder = RunHistoryRecorder::open(m_path, config, thisServer());
    QVERIFY2(recorder, qPrintable(recorder.error()));
    HistoryStore& store = (*recorder)->store();
    QCOMPARE(store.queries().get(orphan)->status, RunStatus::Interrupted);
    QCOMPARE(store.queries().get(alive)->status,
             RunStatus::Running); // its server (this test) lives
    // The newest 3 runs are kept: the two above and the newest ended one.
    QCOMPARE(*store.queries().count({}), 3);
    QVERIFY(store.queries().get(ended.constLast()));
    QVERIFY(!store.queries().get(ended.constFirst()));
}

void tst_RunHistoryRecorder::openFailsWithAReason()
{
    QVERIFY(QDir().mkpath(m_path)); // a folder where the file should be
    QTest::ignoreMessage(QtWarningMsg, QRegularExpression(QStringLiteral("Cannot open")));
    const auto recorder = RunHistoryRecorder::open(m_path, {}, thisServer());
    QVERIFY(!recorder);
    QVERIFY2(recorder.error().contains(QLatin1String("folder")), qPrintable(recorder.error()));
}

void tst_RunHistoryRecorder::eachTextIsKeptUpToItsCap()
{
    RunHistoryRecorder::Config config;
    config.maxFieldBytes = 1000;
    const auto recorder = makeRecorder(config);
    QVERIFY(recorder);
    const qint64 handle = recorder->runStarted(start(QString(5000, u'c')));
    const QString keptCode = recorder->store().queries().get(handle)->code;
    QCOMPARE(keptCode, QString(1000, u'c') + HistoryFieldCap::marker(4000));

    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::Exited;
    result.stdoutBytes = QByteArray(3000, 'o');
    result.stderrBytes = QByteArrayLiteral("short\n");
    result.stdoutTruncated = true; // by the output cap: a different matter, kept as it was
    recorder->runEnded(handle, result);
    const auto run = recorder->store().queries().get(handle);
    QCOMPARE(run->stdoutText, QString(1000, u'o') + HistoryFieldCap::marker(2000));
    QCOMPARE(run->stderrText, QStringLiteral("short\n"));
    QCOMPARE(run->stdoutTruncated, true);
    QCOMPARE(run->stderrTruncated, false);

    const qint64 failed = recorder->runStarted(start());
    recorder->runFailed(failed, QString(1500, u'm'));
    QCOMPARE(recorder->store().queries().get(failed)->errorMessage,
             QString(1000, u'm') + HistoryFieldCap::marker(500));
}

void tst_RunHistoryRecorder::toolPathInvalidArgumentsKeepACappedCode()
{
    const auto recorder = makeRecorder(); // the default cap
    QVERIFY(recorder);
    const auto runner = makeRunner();
    RunCodeTool tool(*runner, pythonConfig(), recorder.get());
    QObject owner;
    const QString code = QStringLiteral("# ") + QString(4 * 1024 * 1024, u'x');
    ToolCall* call =
        tool.start({{QStringLiteral("code"), code}, {QStringLiteral("timeout_seconds"), -5}},
                   context(), &owner);
    QSignalSpy finished(call, &ToolCall::finished);
    QVERIFY(finished.wait(5000));
    const QList<RunRecord> runs = *recorder->store().queries().list({});
    QCOMPARE(runs.size(), 1);
    const RunRecord& run = runs.first();
    QCOMPARE(run.status, RunStatus::Error);
    QVERIFY2(run.errorMessage.contains(QLatin1String("timeout_seconds")),
             qPrintable(run.errorMessage));
    QCOMPARE(run.code,
             code.left(HistoryFieldCap::kDefaultMaxBytes) +
                 HistoryFieldCap::marker(code.size() - HistoryFieldCap::kDefaultMaxBytes));
    QVERIFY(run.stdoutText.isEmpty() && run.stderrText.isEmpty());
}

void tst_RunHistoryRecorder::theSizeLimitHoldsAfterEachRun()
{
    RunHistoryRecorder::Config config;
    config.retention.maxTotalBytes = 512 * 1024;
    const auto recorder = makeRecorder(config);
    QVERIFY(recorder);
    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::Exited;
    result.stdoutBytes = QByteArray(64 * 1024, 'o');
    qint64 last = 0;
    for (int i = 0; i < 30; ++i) {
        last = recorder->runStarted(start(QStringLiteral("print(%1)").arg(i)));
        QVERIFY(last > 0);
        recorder->runEnded(last, result);
        const qint64 size = *recorder->store().retention().contentBytes();
        QVERIFY2(size <= config.retention.maxTotalBytes, qPrintable(QString::number(size)));
    }
    // The oldest went, the newest stayed.
    QVERIFY(recorder->store().queries().get(last));
    QVERIFY(!recorder->store().queries().get(1));
    QVERIFY(*recorder->store().queries().count({}) >= 4);
}

void tst_RunHistoryRecorder::theFilesLimitHoldsAfterEachRun()
{
    RunHistoryRecorder::Config config;
    config.retention.maxFilesBytes = 1024 * 1024;
    const auto recorder = makeRecorder(config);
    QVERIFY(recorder);
    const RunFilesStore files(recorder->store().filesRoot());
    ExecutionResult result;
    result.outcome = ExecutionResult::Outcome::Exited;
    QStringList keys;
    for (int i = 0; i < 5; ++i) {
        // Each run leaves 300 KiB of output, as the server would have streamed it.
        const auto key = files.reserve();
        QVERIFY(key);
        QVERIFY(QDir().mkpath(files.folder(*key) + QStringLiteral("/out")));
        QFile output(files.folder(*key) + QStringLiteral("/out/data.bin"));
        QVERIFY(output.open(QIODevice::WriteOnly));
        QVERIFY(output.write(QByteArray(300 * 1024, 'x')) > 0);
        output.close();
        // Folders are pruned oldest first (by modification time): a second apart.
        const qint64 at = QDateTime::currentSecsSinceEpoch() - 100 + i;
        const struct timeval times[2] = {{at, 0}, {at, 0}};
        QCOMPARE(::utimes(QFile::encodeName(files.folder(*key)).constData(), times), 0);
        RunObserver::Start started = start();
        started.filesKey = *key;
        const qint64 handle = recorder->runStarted(started);
        QVERIFY(handle > 0);
        recorder->runEnded(handle, result);
        QVERIFY2(files.totalBytes() <= config.retention.maxFilesBytes,
                 qPrintable(QString::number(files.totalBytes())));
        keys += *key;
    }
    QVERIFY(!QFileInfo::exists(files.folder(keys.at(0))));
    QVERIFY(QFileInfo::exists(files.folder(keys.at(4))));
    QCOMPARE(*recorder->store().queries().count({}), 5); // the runs stay
}

void tst_RunHistoryRecorder::prunesOnATimer()
{
    RunHistoryRecorder::Config config;
    config.retention = RetentionPolicy{2, 0};
    config.pruneInterval = std::chrono::milliseconds(200);
    const auto recorder = makeRecorder(config);
    QVERIFY(recorder);
    QCOMPARE(recorder->pruner().interval(), std::chrono::milliseconds(200));
    // Written as another process would: nothing of this recorder's own runs.
    HistoryStore& store = recorder->store();
    for (int i = 0; i < 6; ++i) {
        RunRecord run;
        run.code = QString::number(i);
        const auto id = store.ledger().recordStart(run);
        QVERIFY(id);
        RunRecord end;
        end.status = RunStatus::Ok;
        QVERIFY(store.ledger().recordEnd(*id, end));
    }
    QCOMPARE(*store.queries().count({}), 6);
    QSignalSpy passes(&recorder->pruner(), &HistoryPruner::timerPassDone);
    QVERIFY(passes.wait(5000));
    QCOMPARE(passes.constFirst().constFirst().toInt(), 4);
    QCOMPARE(*store.queries().count({}), 2);
}

void tst_RunHistoryRecorder::newConfigAppliesToTheNextRuns()
{
    const auto recorder = makeRecorder();
    QVERIFY(recorder);
    RunHistoryRecorder::Config config;
    config.maxFieldBytes = 10;
    config.retention.maxRuns = 1;
    config.pruneInterval = std::chrono::milliseconds(100);
    recorder->setConfig(config);
    QCOMPARE(recorder->pruner().interval(), std::chrono::milliseconds(100));
    QCOMPARE(recorder->pruner().policy(), config.retention);
    const qint64 handle = recorder->runStarted(start(QStringLiteral("print('0123456789')")));
    QCOMPARE(recorder->store().queries().get(handle)->code,
             QStringLiteral("print('012") + HistoryFieldCap::marker(9));
}

QTEST_GUILESS_MAIN(tst_RunHistoryRecorder)
#include "tst_RunHistoryRecorder.moc"
