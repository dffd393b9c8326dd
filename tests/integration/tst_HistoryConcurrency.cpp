// The run history written by several processes at once, as MCP servers and the desktop app do:
// real writer processes (history_writer) on one SQLite file, a live reader in this process, and
// a writer killed in the middle of its writes. No container engine is needed.

#include "history/HistorySchema.h"
#include "history/HistoryStore.h"
#include "platform/ProcessProbe.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QProcess>
#include <QSet>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUuid>

#include <memory>
#include <vector>

using namespace csm;

namespace {

constexpr int kWriters = 4;
constexpr int kRunsPerWriter = 250;

QString writerBinary()
{
    return QStringLiteral(CSM_HISTORY_WRITER);
}

std::unique_ptr<QProcess> startWriter(const QString& database, int id, int runs,
                                      const QStringList& options)
{
    auto process = std::make_unique<QProcess>();
    process->setProgram(writerBinary());
    process->setArguments(QStringList{database, QString::number(id), QString::number(runs)} +
                          options);
    process->setProcessChannelMode(QProcess::MergedChannels);
    process->start();
    return process;
}

// PRAGMA integrity_check through a connection of its own.
QString integrityCheck(const QString& path)
{
    const QString name = QStringLiteral("check-") + QUuid::createUuid().toString();
    QString result;
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(path);
        if (db.open()) {
            QSqlQuery query(db);
            if (query.exec(QStringLiteral("PRAGMA integrity_check")) && query.next())
                result = query.value(0).toString();
            else
                result = query.lastError().text();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    return result;
}

} // namespace

class tst_HistoryConcurrency final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(QFileInfo(writerBinary()).isExecutable(), qPrintable(writerBinary()));
    }

    void concurrentWritersAndALiveReader()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // Not created beforehand: the writers race to create the file and its schema.
        const QString path = dir.filePath(QStringLiteral("history/history.sqlite"));

        QElapsedTimer timer;
        timer.start();
        std::vector<std::unique_ptr<QProcess>> writers;
        writers.reserve(kWriters);
        for (int id = 0; id < kWriters; ++id)
            writers.push_back(startWriter(path, id, kRunsPerWriter,
                                          {QStringLiteral("--max-sleep-us"), QStringLiteral("1000"),
                                           QStringLiteral("--in-flight"), QStringLiteral("2")}));
        for (const auto& writer : writers)
            QVERIFY2(writer->waitForStarted(10000), qPrintable(writer->errorString()));

        auto opened = HistoryStore::open(path);
        QVERIFY2(opened, qPrintable(opened.error()));
        const std::unique_ptr<HistoryStore> monitor = *std::move(opened);

        // What a live view would show: the latest state of each run, from changedSince only.
        QHash<qint64, RunStatus> seen;
        qint64 lastSeq = 0;
        int polls = 0;
        int pages = 0;
        const auto drain = [&]() -> bool {
            for (;;) {
                const Expected<QList<RunRecord>> read =
                    monitor->queries().changedSince(lastSeq, 100);
                if (!read) {
                    qWarning().noquote() << read.error();
                    return false;
                }
                const QList<RunRecord>& changes = *read;
                if (changes.isEmpty())
                    return true;
                for (const RunRecord& run : changes) {
                    // Strictly increasing: nothing twice, nothing out of order.
                    if (run.changeSeq <= lastSeq) {
                        qWarning() << "change" << run.changeSeq << "after" << lastSeq;
                        return false;
                    }
                    lastSeq = run.changeSeq;
                    seen.insert(run.id, run.status);
                }
                ++pages;
            }
        };

        const QDeadlineTimer deadline(120000);
        const auto allFinished = [&] {
            for (const auto& writer : writers) {
                if (writer->state() != QProcess::NotRunning)
                    return false;
            }
            return true;
        };
        while (!allFinished()) {
            QVERIFY2(!deadline.hasExpired(), "the writers took too long");
            QVERIFY(drain());
            HistoryQuery page;
            page.limit = 50;
            page.includeContent = false;
            const Expected<QList<RunRecord>> listed = monitor->queries().list(page);
            QVERIFY2(listed, qPrintable(listed.error()));
            const QList<RunRecord>& newest = *listed;
            QVERIFY(newest.size() <= 50);
            QVERIFY(*monitor->queries().count({}) >= newest.size());
            ++polls;
            QCoreApplication::processEvents();
            QThread::msleep(2);
            for (const auto& writer : writers)
                writer->waitForFinished(0);
        }
        const qint64 elapsed = timer.elapsed();
        for (const auto& writer : writers) {
            const QByteArray output = writer->readAll();
            QVERIFY2(writer->exitStatus() == QProcess::NormalExit && writer->exitCode() == 0,
                     output.constData());
            qInfo().noquote() << output.trimmed();
        }
        qInfo("%d writer processes x %d runs (start + end each): %lld ms; the reader polled %d "
              "times (%d pages of changes)",
              kWriters, kRunsPerWriter, static_cast<long long>(elapsed), polls, pages);
        QVERIFY(polls > 1);

        QVERIFY(drain());
        const int total = kWriters * kRunsPerWriter;
        QCOMPARE(*monitor->queries().count({}), total);
        HistoryQuery all;
        all.limit = 0;
        const QList<RunRecord> runs = *monitor->queries().list(all);
        QCOMPARE(runs.size(), total);
        QSet<QString> codes;
        QSet<qint64> ids;
        for (const RunRecord& run : runs) {
            QCOMPARE(run.status, RunStatus::Ok);
            QVERIFY(run.endedAt.isValid());
            QCOMPARE(run.stdoutText.size(), 16);
            codes.insert(run.code);
            ids.insert(run.id);
        }
        QCOMPARE(ids.size(), total);
        for (int writer = 0; writer < kWriters; ++writer) {
            for (int index = 0; index < kRunsPerWriter; ++index)
                QVERIFY(codes.contains(QStringLiteral("writer %1 run %2").arg(writer).arg(index)));
        }
        // The live view missed nothing: it holds every run, in its final state.
        QCOMPARE(seen.size(), total);
        for (auto it = seen.cbegin(); it != seen.cend(); ++it)
            QCOMPARE(it.value(), RunStatus::Ok);
        QCOMPARE(lastSeq, *monitor->queries().lastChangeSeq());
        QCOMPARE(lastSeq, 2 * total);
        QCOMPARE(integrityCheck(path), QStringLiteral("ok"));
    }

    void openingWaitsForAWriterOfANewFile()
    {
        // Another process writing the new file before it is in WAL mode (an older build
        // creating it): the server waits for it, then opens the file, rather than serving
        // without a history.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("history.sqlite"));
        const QString name = QStringLiteral("writer");
        {
            QSqlDatabase writer = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            writer.setDatabaseName(path);
            QVERIFY(writer.open());
            QSqlQuery write(writer);
            QVERIFY(write.exec(QStringLiteral("BEGIN IMMEDIATE")));

            auto opener = startWriter(path, 0, 1, {});
            QVERIFY2(opener->waitForStarted(10000), qPrintable(opener->errorString()));
            // Still trying while the write goes on (not exited 2, giving up).
            const bool finishedEarly = opener->waitForFinished(1500);
            QVERIFY2(!finishedEarly, opener->readAll().constData());
            QVERIFY(write.exec(QStringLiteral("ROLLBACK")));
            QVERIFY2(opener->waitForFinished(30000), qPrintable(opener->errorString()));
            const QString output = QString::fromUtf8(opener->readAll());
            QVERIFY2(opener->exitStatus() == QProcess::NormalExit && opener->exitCode() == 0,
                     qPrintable(output));
            writer.close();
        }
        QSqlDatabase::removeDatabase(name);
        auto opened = HistoryStore::open(path);
        QVERIFY2(opened, qPrintable(opened.error()));
        QCOMPARE(*(*opened)->queries().count({}), qint64(1));
    }

    void manyProcessesOpenANewHistoryAtOnce()
    {
        // The desktop app and its server, or several assistants' servers, starting together on a
        // machine without a history: every one of them must get it (none may serve without it),
        // and it is created once, at the latest version. Several rounds, since a race may hide.
        constexpr int kRounds = 8;
        constexpr int kOpeners = 6;
        for (int round = 0; round < kRounds; ++round) {
            QTemporaryDir dir;
            QVERIFY(dir.isValid());
            const QString path = dir.filePath(QStringLiteral("history/history.sqlite"));
            std::vector<std::unique_ptr<QProcess>> openers;
            for (int id = 0; id < kOpeners; ++id) {
                auto opener = std::make_unique<QProcess>();
                opener->setProgram(writerBinary());
                opener->setArguments({path, QString::number(id), QStringLiteral("1")});
                opener->setProcessChannelMode(QProcess::MergedChannels);
                openers.push_back(std::move(opener));
            }
            QVERIFY(!QFileInfo::exists(path));
            for (const auto& opener : openers)
                opener->start();
            int created = 0;
            for (const auto& opener : openers) {
                QVERIFY2(opener->waitForFinished(60000), qPrintable(opener->errorString()));
                const QString output = QString::fromUtf8(opener->readAll());
                QVERIFY2(opener->exitStatus() == QProcess::NormalExit && opener->exitCode() == 0,
                         qPrintable(QStringLiteral("round %1: %2").arg(round).arg(output)));
                // Its info lines say whether a process created the file or upgraded it.
                QVERIFY2(!output.contains(QLatin1String("upgraded")), qPrintable(output));
                created += output.count(QLatin1String("created the run history"));
            }
            QCOMPARE(created, 1);
            QCOMPARE(integrityCheck(path), QStringLiteral("ok"));
            auto opened = HistoryStore::open(path);
            QVERIFY2(opened, qPrintable(opened.error()));
            QCOMPARE((*opened)->schemaVersion(), HistorySchema::latestVersion());
            QCOMPARE(*(*opened)->queries().count({}), qint64(kOpeners));
            // The openers' turn is a lock file that goes with its last owner.
            QVERIFY(!QFileInfo::exists(path + QStringLiteral(".opening")));
        }
    }

    // Every writer prunes to the same size after each of its runs, as servers do: together they
    // keep the file within it, delete no run still running, and fail no write.
    void writersKeepToASizeLimitTogether()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("history.sqlite"));
        constexpr int kRuns = 150;
        constexpr qint64 kLimitKiB = 512;
        std::vector<std::unique_ptr<QProcess>> writers;
        for (int id = 0; id < kWriters; ++id)
            writers.push_back(
                startWriter(path, id, kRuns,
                            {QStringLiteral("--in-flight"), QStringLiteral("2"),
                             QStringLiteral("--max-sleep-us"), QStringLiteral("500"),
                             QStringLiteral("--output-bytes"), QStringLiteral("16384"),
                             QStringLiteral("--max-total-kb"), QString::number(kLimitKiB)}));
        for (const auto& writer : writers) {
            QVERIFY2(writer->waitForFinished(120'000), "a writer took too long");
            const QByteArray output = writer->readAll();
            QVERIFY2(writer->exitStatus() == QProcess::NormalExit && writer->exitCode() == 0,
                     output.constData());
        }
        auto opened = HistoryStore::open(path);
        QVERIFY2(opened, qPrintable(opened.error()));
        const std::unique_ptr<HistoryStore> store = *std::move(opened);
        QVERIFY2(*store->retention().contentBytes() <= kLimitKiB * 1024,
                 qPrintable(QString::number(*store->retention().contentBytes())));
        QCOMPARE(*store->queries().lastChangeSeq(), 2 * kWriters * kRuns);
        HistoryQuery all;
        all.limit = 0;
        const QList<RunRecord> kept = *store->queries().list(all);
        QVERIFY(kept.size() >= 8 && kept.size() < kWriters * kRuns);
        for (const RunRecord& run : kept)
            QCOMPARE(run.status, RunStatus::Ok);
        // The newest run of all is kept.
        QCOMPARE(kept.constFirst().id, qint64(kWriters) * kRuns);
        QCOMPARE(integrityCheck(path), QStringLiteral("ok"));
        QVERIFY2(QFileInfo(path).size() < 4 * kLimitKiB * 1024,
                 qPrintable(QString::number(QFileInfo(path).size())));
    }

    void killedWriterLeavesAUsableDatabase()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("history.sqlite"));
        {
            auto opened = HistoryStore::open(path);
            QVERIFY2(opened, qPrintable(opened.error()));
            std::unique_ptr<HistoryStore> store = *std::move(opened);
            // The writer never gets this far; big outputs keep it inside transactions often.
            auto writer = startWriter(path, 9, 1000000,
                                      {QStringLiteral("--in-flight"), QStringLiteral("4"),
                                       QStringLiteral("--output-bytes"), QStringLiteral("65536")});
            QVERIFY2(writer->waitForStarted(10000), qPrintable(writer->errorString()));
            const qint64 pid = writer->processId();
            // Kill it once it is well into its writes (a few hundred ms), not at a fixed time.
            QTRY_VERIFY_WITH_TIMEOUT(store->queries().count({}).valueOr(-1) >= 100, 30000);
            QVERIFY(writer->state() == QProcess::Running);
            writer->kill(); // SIGKILL: no chance to finish anything
            QVERIFY(writer->waitForFinished(10000));
            QCOMPARE(writer->exitStatus(), QProcess::CrashExit);
            QVERIFY(!ProcessProbe::isCodeSandboxProcessAlive(pid));

            // Reopened from scratch, as the next server to start would.
            store.reset();
            auto reopening = HistoryStore::open(path);
            QVERIFY2(reopening, qPrintable(reopening.error()));
            const std::unique_ptr<HistoryStore> reopened = *std::move(reopening);
            QCOMPARE(integrityCheck(path), QStringLiteral("ok"));

            HistoryQuery all;
            all.limit = 0;
            all.includeContent = false;
            const QList<RunRecord> runs = *reopened->queries().list(all);
            QVERIFY(runs.size() >= 100);
            int running = 0;
            for (const RunRecord& summary : runs) {
                const auto run = reopened->queries().get(summary.id);
                QVERIFY(run);
                QVERIFY(run->code.startsWith(QLatin1String("writer 9 run ")));
                QCOMPARE(run->serverPid, pid);
                if (run->status == RunStatus::Running) {
                    ++running;
                    QVERIFY(run->stdoutText.isEmpty());
                } else {
                    QCOMPARE(run->status, RunStatus::Ok);
                    QCOMPARE(run->stdoutText.size(), 65536);
                }
            }
            // Four in flight: three or four were open when it died.
            QVERIFY2(running >= 3 && running <= 4, qPrintable(QString::number(running)));

            // The next server start notices.
            QCOMPARE(*reopened->ledger().markInterrupted(QSysInfo::machineHostName(),
                                                         ProcessProbe::isCodeSandboxProcessAlive),
                     running);
            HistoryQuery stillRunning;
            stillRunning.statuses = {RunStatus::Running};
            QCOMPARE(*reopened->queries().count(stillRunning), 0);
            HistoryQuery interrupted;
            interrupted.statuses = {RunStatus::Interrupted};
            QCOMPARE(*reopened->queries().count(interrupted), running);

            // And writing goes on.
            RunRecord run;
            run.serverPid = QCoreApplication::applicationPid();
            run.hostName = QSysInfo::machineHostName();
            run.code = QStringLiteral("after the crash");
            const auto id = reopened->ledger().recordStart(run);
            QVERIFY2(id, qPrintable(id.error()));
            RunRecord finished;
            finished.status = RunStatus::Ok;
            QVERIFY(reopened->ledger().recordEnd(*id, finished));
            QCOMPARE(reopened->queries().get(*id)->code, QStringLiteral("after the crash"));
        }
        QCOMPARE(integrityCheck(path), QStringLiteral("ok"));
    }
};

QTEST_GUILESS_MAIN(tst_HistoryConcurrency)
#include "tst_HistoryConcurrency.moc"
