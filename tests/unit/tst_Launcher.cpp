// csm-launch itself, run on the host with /bin/sh as the interpreter: its frames are what the
// server decodes. (Inside real containers it is exercised by the integration tests.)
#include "sandbox/LauncherExitStatus.h"
#include "sandbox/LauncherStreamDecoder.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTest>

using namespace csm;
using Type = LauncherStreamDecoder::Frame::Type;

namespace {
struct LaunchResult
{
    QList<LauncherStreamDecoder::Frame> frames;
    QByteArray stdoutBytes;
    QByteArray stderrBytes;
    int launcherExitCode = -1;
    bool corrupt = false;

    std::optional<LauncherExitStatus> exit() const
    {
        if (frames.isEmpty() || frames.constLast().type != Type::Exit)
            return std::nullopt;
        return LauncherExitStatus::parse(frames.constLast().payload);
    }
};

LaunchResult launch(const QByteArray& program, const QStringList& options = {},
                    const QStringList& interpreter = {QStringLiteral("/bin/sh")})
{
    QProcess process;
    process.start(QStringLiteral(CSM_LAUNCHER_BINARY),
                  options + QStringList{QStringLiteral("--")} + interpreter);
    process.waitForStarted();
    process.write(program);
    process.closeWriteChannel();
    process.waitForFinished(30'000);
    LaunchResult result;
    result.launcherExitCode = process.exitCode();
    LauncherStreamDecoder decoder;
    decoder.append(process.readAllStandardOutput());
    while (const auto frame = decoder.next()) {
        result.frames.append(*frame);
        if (frame->type == Type::Stdout)
            result.stdoutBytes += frame->payload;
        if (frame->type == Type::Stderr)
            result.stderrBytes += frame->payload;
    }
    result.corrupt = decoder.isCorrupt() || decoder.pendingBytes() != 0;
    return result;
}
} // namespace

class tst_Launcher final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void framesOutputAndExitStatus()
    {
        const LaunchResult result = launch("echo out; echo err >&2; exit 3\n");
        QVERIFY(!result.corrupt);
        QCOMPARE(result.frames.constFirst().type, Type::Started);
        QCOMPARE(result.stdoutBytes, QByteArray("out\n"));
        QCOMPARE(result.stderrBytes, QByteArray("err\n"));
        const auto exit = result.exit();
        QVERIFY(exit);
        QCOMPARE(exit->exitCode, 3);
        QCOMPARE(exit->oomKilled, false);
        QCOMPARE(result.launcherExitCode, 3);
    }

    void reportsDeathBySignal()
    {
        const LaunchResult result = launch("kill -9 $$\n");
        const auto exit = result.exit();
        QVERIFY(exit);
        QCOMPARE(exit->signal, 9);
        QCOMPARE(exit->exitCode, 137);
    }

    void outputLooksLikeFramesButStaysOutput()
    {
        // A program printing bytes shaped like an exit frame only ever produces stdout data.
        const LaunchResult result = launch("printf 'X\\000\\000\\000\\006exit=0'; exit 4\n");
        QVERIFY(!result.corrupt);
        QCOMPARE(result.stdoutBytes, QByteArray("X\0\0\0\x06"
                                                "exit=0",
                                                11));
        QCOMPARE(result.exit()->exitCode, 4);
    }

    void capsOutputInsideTheSandbox()
    {
        const LaunchResult result =
            launch("head -c 100000 /dev/zero; head -c 5000 /dev/zero >&2\n",
                   {QStringLiteral("--output-cap"), QStringLiteral("1000")});
        QCOMPARE(result.stdoutBytes.size(), 1000);
        QCOMPARE(result.stderrBytes.size(), 1000);
        const auto exit = result.exit();
        QVERIFY(exit);
        QCOMPARE(exit->stdoutDropped, 99'000);
        QCOMPARE(exit->stderrDropped, 4'000);
        QCOMPARE(exit->exitCode, 0);
    }

    void missingInterpreterIsAFailureFrame()
    {
        const LaunchResult result = launch("", {}, {QStringLiteral("/nonexistent/python3")});
        QVERIFY(!result.frames.isEmpty());
        QCOMPARE(result.frames.constLast().type, Type::Failure);
        QVERIFY(result.frames.constLast().payload.contains("/nonexistent/python3"));
        QVERIFY(result.frames.constLast().payload.contains("No such file"));
        QCOMPARE(result.launcherExitCode, 127);
    }

    void anOrphanHoldingTheOutputDoesNotDelayTheExit()
    {
        QElapsedTimer clock;
        clock.start();
        const LaunchResult result = launch("sleep 30 & echo started\n");
        QVERIFY2(clock.elapsed() < 5'000, "the launcher waited for a background process");
        QCOMPARE(result.stdoutBytes, QByteArray("started\n"));
        QCOMPARE(result.exit()->exitCode, 0);
    }

    void deliversALargeProgram()
    {
        // 2 MiB of program through the launcher's stdin into the interpreter's.
        QByteArray program = "x='" + QByteArray(2 * 1024 * 1024, 'a') + "'\necho ${#x}\n";
        const LaunchResult result = launch(program);
        QCOMPARE(result.stdoutBytes, QByteArray("2097152\n"));
    }

    void refusesAProgramOverTheLimit()
    {
        const LaunchResult result =
            launch(QByteArray(4096, '#'), {QStringLiteral("--code-limit"), QStringLiteral("1024")});
        QCOMPARE(result.frames.constLast().type, Type::Failure);
        QVERIFY(!result.exit());
    }

    void programClosingItsOutputStillReportsItsExit()
    {
        const LaunchResult result = launch("exec 1>&- 2>&-; sleep 0.2; exit 5\n");
        QCOMPARE(result.exit()->exitCode, 5);
    }

    void emptyProgram()
    {
        const LaunchResult result = launch("");
        QCOMPARE(result.exit()->exitCode, 0);
        QVERIFY(result.stdoutBytes.isEmpty());
    }

    void usageErrors()
    {
        QProcess process;
        process.start(QStringLiteral(CSM_LAUNCHER_BINARY), {QStringLiteral("/bin/sh")});
        process.closeWriteChannel();
        QVERIFY(process.waitForFinished(10'000));
        QCOMPARE(process.exitCode(), 2);
    }
};

QTEST_GUILESS_MAIN(tst_Launcher)
#include "tst_Launcher.moc"
