// A stand-in for a server process recording its runs: tst_HistoryConcurrency starts several at
// once on one history file (and kills one in the middle) to prove that the store holds up.
//
// history_writer DATABASE WRITER_ID RUNS [--in-flight N] [--max-sleep-us N] [--output-bytes N]
//                [--max-total-kb N]
//
// Records RUNS runs (start, then end), whose code is "writer WRITER_ID run INDEX". Up to N runs
// are open at once (default 1: each run ends before the next starts), with a random pause of up
// to --max-sleep-us between a start and the next write. Exits 0 when every write succeeded,
// 1 when one failed, 2 on bad arguments or when the database does not open.

#include "history/HistoryStore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QQueue>
#include <QRandomGenerator>
#include <QSysInfo>
#include <QThread>
#include <QUuid>

#include <cstdio>

using namespace csm;

namespace {

int fail(const QString& message)
{
    std::fprintf(stderr, "history_writer: %s\n", qPrintable(message));
    return 2;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("database"), QStringLiteral("history file"));
    parser.addPositionalArgument(QStringLiteral("writer-id"), QStringLiteral("this writer's id"));
    parser.addPositionalArgument(QStringLiteral("runs"), QStringLiteral("how many runs"));
    const QCommandLineOption inFlightOption(QStringLiteral("in-flight"),
                                            QStringLiteral("runs open at once"),
                                            QStringLiteral("n"), QStringLiteral("1"));
    const QCommandLineOption sleepOption(QStringLiteral("max-sleep-us"),
                                         QStringLiteral("longest pause between writes"),
                                         QStringLiteral("us"), QStringLiteral("0"));
    const QCommandLineOption outputOption(QStringLiteral("output-bytes"),
                                          QStringLiteral("size of each run's stdout"),
                                          QStringLiteral("n"), QStringLiteral("16"));
    const QCommandLineOption maxTotalOption(QStringLiteral("max-total-kb"),
                                            QStringLiteral("size limit, pruned to after each run"),
                                            QStringLiteral("n"), QStringLiteral("0"));
    parser.addOption(inFlightOption);
    parser.addOption(maxTotalOption);
    parser.addOption(sleepOption);
    parser.addOption(outputOption);
    parser.process(app);

    const QStringList arguments = parser.positionalArguments();
    bool idOk = false;
    bool runsOk = false;
    bool inFlightOk = false;
    bool sleepOk = false;
    bool outputOk = false;
    bool maxTotalOk = false;
    const int writerId = arguments.value(1).toInt(&idOk);
    const int runs = arguments.value(2).toInt(&runsOk);
    const int inFlight = parser.value(inFlightOption).toInt(&inFlightOk);
    const int maxSleepUs = parser.value(sleepOption).toInt(&sleepOk);
    const int outputBytes = parser.value(outputOption).toInt(&outputOk);
    const qint64 maxTotalBytes = parser.value(maxTotalOption).toLongLong(&maxTotalOk) * 1024;
    if (arguments.size() != 3 || !idOk || !runsOk || runs < 0 || !inFlightOk || inFlight < 1 ||
        !sleepOk || maxSleepUs < 0 || !outputOk || outputBytes < 0 || !maxTotalOk ||
        maxTotalBytes < 0)
        return fail(QStringLiteral("bad arguments (see the comment at the top of the source)"));

    auto opened = HistoryStore::open(arguments.at(0));
    if (!opened)
        return fail(opened.error());
    const std::unique_ptr<HistoryStore> store = *std::move(opened);

    // Seeded by the writer's id: the same pauses each time.
    QRandomGenerator random(static_cast<quint32>(writerId) + 1);
    const QString instance = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const QString output(outputBytes, u'o');
    int failures = 0;
    QString lastFailure;
    const auto count = [&](const auto& written) {
        if (written)
            return true;
        ++failures;
        lastFailure = written.error();
        return false;
    };
    QQueue<qint64> open;
    QElapsedTimer timer;
    timer.start();

    const auto pause = [&] {
        if (maxSleepUs > 0)
            QThread::usleep(random.bounded(maxSleepUs + 1));
    };
    const auto end = [&](qint64 id) {
        RunRecord finished;
        finished.status = RunStatus::Ok;
        finished.exitCode = 0;
        finished.stdoutText = output;
        finished.durationMs = 1;
        count(store->ledger().recordEnd(id, finished));
        if (maxTotalBytes > 0)
            count(store->retention().pruneToSize(maxTotalBytes));
    };

    for (int index = 0; index < runs; ++index) {
        RunRecord run;
        run.serverInstance = instance;
        run.serverPid = QCoreApplication::applicationPid();
        run.hostName = QSysInfo::machineHostName();
        run.transport = QStringLiteral("stdio");
        run.clientName = QStringLiteral("history_writer");
        run.tool = QStringLiteral("run_code");
        run.language = QStringLiteral("python");
        run.code = QStringLiteral("writer %1 run %2").arg(writerId).arg(index);
        const auto id = store->ledger().recordStart(run);
        if (!count(id))
            continue;
        open.enqueue(*id);
        pause();
        if (open.size() >= inFlight)
            end(open.dequeue());
    }
    while (!open.isEmpty())
        end(open.dequeue());

    std::printf("writer %d: %d runs in %lld ms, %d failed writes\n", writerId, runs,
                static_cast<long long>(timer.elapsed()), failures);
    if (failures > 0)
        std::fprintf(stderr, "history_writer: last error: %s\n", qPrintable(lastFailure));
    return failures == 0 ? 0 : 1;
}
