// EngineJob with real processes (a shell, no container engine): the lines a command prints,
// progress bars that redraw with \r included, its stderr kept apart where asked, its exit code,
// a program that cannot be started, and Cancel.
#include "runtime/EngineJob.h"

#include <QSignalSpy>
#include <QTest>

using csm::EngineJob;

namespace {

EngineJob::Command shell(const QString& script)
{
    return {QStringLiteral("/bin/sh"), {QStringLiteral("-c"), script}};
}

// Runs `job` to its end, collecting its lines.
QStringList runToEnd(EngineJob& job)
{
    QStringList lines;
    QObject::connect(&job, &EngineJob::lineReceived, &job,
                     [&lines](const QString& line) { lines << line; });
    QSignalSpy finished(&job, &EngineJob::finished);
    job.start();
    if (!finished.wait(10'000))
        qFatal("the job did not finish");
    return lines;
}

} // namespace

class tst_EngineJob final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void linesAsTheyArePrinted()
    {
        EngineJob job(shell(QStringLiteral(
            "printf 'step 1\\n10%%\\r50%%\\r100%%\\n'; printf 'to stderr\\n' >&2; printf 'last'")));
        QCOMPARE(job.commandLine(),
                 QStringLiteral("/bin/sh -c 'printf '\\''step 1\\n10%%\\r50%%\\r100%%\\n'\\''; "
                                "printf '\\''to stderr\\n'\\'' >&2; printf '\\''last'\\'''"));
        const QStringList lines = runToEnd(job);
        // Each state of the progress bar is a line; stderr joins them; the unfinished last line
        // comes at the end.
        QCOMPARE(lines, (QStringList{QStringLiteral("step 1"), QStringLiteral("10%"),
                                     QStringLiteral("50%"), QStringLiteral("100%"),
                                     QStringLiteral("to stderr"), QStringLiteral("last")}));
        QCOMPARE(job.ending(), EngineJob::Ending::Exited);
        QVERIFY(job.succeeded());
        QVERIFY(job.output().isEmpty()); // a build's progress is not kept unless asked
        QVERIFY(job.elapsedMs() >= 0);
    }

    // A program passed as an argument (the Python bootstrap of an image's test) is not written
    // out whole in the log: its first line and how many follow.
    void aProgramArgumentShowsAsItsFirstLine()
    {
        EngineJob job({QStringLiteral("python3"),
                       {QStringLiteral("-c"), QStringLiteral("import sys\nx = 1\nprint(x)\n")}});
        QCOMPARE(job.commandLine(), QStringLiteral("python3 -c 'import sys …(2 more lines)'"));
    }

    void stderrKeptApartWhenAsked()
    {
        EngineJob::Command command =
            shell(QStringLiteral("read line; echo \"got $line\"; echo 'engine warning' >&2; "
                                 "exit 3"));
        command.input = "input\n";
        command.separateErrors = true;
        command.keepOutput = true;
        EngineJob job(std::move(command));
        QCOMPARE(runToEnd(job), QStringList{QStringLiteral("got input")});
        QCOMPARE(job.output(), QStringLiteral("got input\n"));
        QCOMPARE(job.errors(), QByteArray("engine warning\n"));
        QCOMPARE(job.exitCode(), 3);
        QVERIFY(!job.succeeded());
    }

    void aProgramThatCannotStartSaysWhy()
    {
        EngineJob job({QStringLiteral("/nonexistent/engine"), {QStringLiteral("build")}});
        QSignalSpy finished(&job, &EngineJob::finished);
        job.start();
        QVERIFY(finished.count() == 1 || finished.wait(5'000));
        QCOMPARE(job.ending(), EngineJob::Ending::FailedToStart);
        QVERIFY(!job.errorString().isEmpty());
        QVERIFY(!job.succeeded());
    }

    void cancelStopsAndSaysSo()
    {
        EngineJob job(shell(QStringLiteral("echo started; sleep 30")));
        QSignalSpy finished(&job, &EngineJob::finished);
        QSignalSpy lines(&job, &EngineJob::lineReceived);
        job.start();
        QVERIFY(lines.wait(5'000));
        QVERIFY(job.isRunning());
        QVERIFY(job.processId() > 0);
        job.cancel();
        QVERIFY(finished.wait(EngineJob::kCancelGraceMs));
        QVERIFY(job.wasCancelled());
        QVERIFY(!job.succeeded());
        QVERIFY(!job.isRunning());
    }
};

QTEST_GUILESS_MAIN(tst_EngineJob)
#include "tst_EngineJob.moc"
