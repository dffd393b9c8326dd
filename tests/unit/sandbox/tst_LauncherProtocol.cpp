// The host side of the launcher protocol: frame decoding and the exit frame, from canned bytes.
#include "csm/launcher_protocol.h"
#include "LauncherFrames.h"
#include "sandbox/LauncherExitStatus.h"
#include "sandbox/LauncherStreamDecoder.h"

#include <QTest>

using namespace csm;
using Type = LauncherStreamDecoder::Frame::Type;

using csm::test::frame;
using csm::test::frameHeader;

class tst_LauncherProtocol final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void headerLayout()
    {
        // The layout both sides share, pinned byte by byte: the type letter, then the payload
        // length in 4 bytes, big-endian.
        const QByteArray header = frameHeader(CSM_FRAME_STDOUT, 0x01020304);
        QCOMPARE(header, QByteArray("O\x01\x02\x03\x04"));
        const auto* bytes = reinterpret_cast<const unsigned char*>(header.constData());
        QCOMPARE(csm_frame_header_payload_size(bytes), 0x01020304U);
        QCOMPARE(csm_frame_header_payload_size(reinterpret_cast<const unsigned char*>(
                     frameHeader(CSM_FRAME_EXIT, 0xfffffffeU).constData())),
                 0xfffffffeU);
    }

    void decodesEveryFrameType()
    {
        LauncherStreamDecoder decoder;
        decoder.append(frame(CSM_FRAME_STARTED, {}) + frame(CSM_FRAME_STDOUT, "out") +
                       frame(CSM_FRAME_STDERR, "err") + frame(CSM_FRAME_EXIT, "exit=0") +
                       frame(CSM_FRAME_FAILURE, "boom") +
                       frame(CSM_FRAME_LIMITS_UNENFORCED, "unenforced=5"));
        const QList<Type> expected{Type::Started, Type::Stdout,  Type::Stderr,
                                   Type::Exit,    Type::Failure, Type::LimitsUnenforced};
        const QList<QByteArray> payloads{{}, "out", "err", "exit=0", "boom", "unenforced=5"};
        for (qsizetype i = 0; i < expected.size(); ++i) {
            const auto next = decoder.next();
            QVERIFY(next);
            QCOMPARE(next->type, expected.at(i));
            QCOMPARE(next->payload, payloads.at(i));
        }
        QVERIFY(!decoder.next());
        QVERIFY(!decoder.isCorrupt());
        QCOMPARE(decoder.pendingBytes(), 0);
    }

    void reassemblesFramesSplitAnywhere()
    {
        const QByteArray payload = QByteArray("binary\0\xff\xfe payload", 18);
        const QByteArray stream =
            frame(CSM_FRAME_STDOUT, payload) + frame(CSM_FRAME_EXIT, "exit=3 oom=0");
        for (qsizetype split = 0; split <= stream.size(); ++split) {
            LauncherStreamDecoder decoder;
            QList<LauncherStreamDecoder::Frame> frames;
            for (const QByteArray& part : {stream.left(split), stream.mid(split)}) {
                decoder.append(part);
                while (const auto next = decoder.next())
                    frames.append(*next);
            }
            QCOMPARE(frames.size(), 2);
            QCOMPARE(frames.at(0).payload, payload);
            QCOMPARE(frames.at(1).type, Type::Exit);
        }
    }

    void byteByByte()
    {
        const QByteArray stream =
            frame(CSM_FRAME_STARTED, {}) + frame(CSM_FRAME_STDOUT, QByteArray(70'000, 'x'));
        LauncherStreamDecoder decoder;
        int frames = 0;
        for (char byte : stream) {
            decoder.append(QByteArray(1, byte));
            while (decoder.next())
                ++frames;
        }
        QCOMPARE(frames, 2);
    }

    void rejectsWhatIsNotTheLauncher_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::newRow("plain text") << QByteArray("Error: no such image\n");
        QTest::newRow("unknown type") << frame('Z', "x");
        QTest::newRow("oversized") << frameHeader(CSM_FRAME_STDOUT, 0x7fffffff);
        QTest::newRow("just over the limit")
            << frameHeader(CSM_FRAME_STDOUT, CSM_FRAME_MAX_PAYLOAD + 1);
    }

    void rejectsWhatIsNotTheLauncher()
    {
        QFETCH(QByteArray, bytes);
        LauncherStreamDecoder decoder;
        decoder.append(bytes);
        QVERIFY(!decoder.next());
        QVERIFY(decoder.isCorrupt());
        QVERIFY(!decoder.error().isEmpty());
        // Nothing more comes out of a corrupt stream, even a valid frame.
        decoder.append(frame(CSM_FRAME_EXIT, "exit=0"));
        QVERIFY(!decoder.next());
    }

    void incompleteFrameWaits()
    {
        LauncherStreamDecoder decoder;
        decoder.append(frame(CSM_FRAME_STDOUT, "hello").left(7));
        QVERIFY(!decoder.next());
        QVERIFY(!decoder.isCorrupt());
        QCOMPARE(decoder.pendingBytes(), 7);
    }

    void exitStatus_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<int>("signal");
        QTest::addColumn<bool>("oom");
        QTest::addColumn<qint64>("stdoutDropped");
        QTest::addColumn<qint64>("stderrDropped");
        QTest::newRow("success") << QByteArray("exit=0 oom=0 stdout_dropped=0 stderr_dropped=0")
                                 << true << 0 << 0 << false << 0LL << 0LL;
        QTest::newRow("exit 3") << QByteArray("exit=3 oom=0") << true << 3 << 0 << false << 0LL
                                << 0LL;
        QTest::newRow("killed") << QByteArray("signal=9 oom=0") << true << 137 << 9 << false << 0LL
                                << 0LL;
        QTest::newRow("oom") << QByteArray("signal=9 oom=1 stdout_dropped=5 stderr_dropped=7")
                             << true << 137 << 9 << true << 5LL << 7LL;
        QTest::newRow("a newer launcher's extra key")
            << QByteArray("exit=1 oom=0 cpu_ms=12") << true << 1 << 0 << false << 0LL << 0LL;
        QTest::newRow("big drop counts") << QByteArray("exit=0 stdout_dropped=1072693248") << true
                                         << 0 << 0 << false << 1072693248LL << 0LL;
        QTest::newRow("empty") << QByteArray() << false << 0 << 0 << false << 0LL << 0LL;
        QTest::newRow("no outcome")
            << QByteArray("oom=1") << false << 0 << 0 << false << 0LL << 0LL;
        QTest::newRow("garbage") << QByteArray("exit=abc") << false << 0 << 0 << false << 0LL
                                 << 0LL;
        QTest::newRow("negative") << QByteArray("exit=-1") << false << 0 << 0 << false << 0LL
                                  << 0LL;
        QTest::newRow("exit above 255")
            << QByteArray("exit=256") << false << 0 << 0 << false << 0LL << 0LL;
        QTest::newRow("signal 0") << QByteArray("signal=0") << false << 0 << 0 << false << 0LL
                                  << 0LL;
        QTest::newRow("no equals") << QByteArray("exit") << false << 0 << 0 << false << 0LL << 0LL;
    }

    void exitStatus()
    {
        QFETCH(QByteArray, payload);
        QFETCH(bool, valid);
        const auto status = LauncherExitStatus::parse(payload);
        QCOMPARE(status.has_value(), valid);
        if (!valid)
            return;
        QFETCH(int, exitCode);
        QFETCH(int, signal);
        QFETCH(bool, oom);
        QFETCH(qint64, stdoutDropped);
        QFETCH(qint64, stderrDropped);
        QCOMPARE(status->exitCode, exitCode);
        QCOMPARE(status->signal, signal);
        QCOMPARE(status->oomKilled, oom);
        QCOMPARE(status->stdoutDropped, stdoutDropped);
        QCOMPARE(status->stderrDropped, stderrDropped);
    }

    void exitStatusElapsed()
    {
        // A launcher's own measure of the program's time; an older launcher gives none.
        QCOMPARE(LauncherExitStatus::parse("exit=0 elapsed_us=1500 oom=0")->elapsedMicroseconds,
                 std::optional<qint64>(1500));
        QCOMPARE(LauncherExitStatus::parse("exit=0 oom=0")->elapsedMicroseconds, std::nullopt);
        QVERIFY(!LauncherExitStatus::parse("exit=0 elapsed_us=-4"));
    }

    void unenforcedLimits_data()
    {
        QTest::addColumn<QByteArray>("payload");
        QTest::addColumn<int>("fromExitFrame");   // -1: the exit frame is unreadable
        QTest::addColumn<int>("fromLimitsFrame"); // -1: the limits frame is unreadable
        QTest::addColumn<QStringList>("names");
        QTest::newRow("none") << QByteArray("unenforced=0") << 0 << -1 << QStringList();
        QTest::newRow("all") << QByteArray("unenforced=7") << 7 << 7
                             << QStringList{QStringLiteral("memory"), QStringLiteral("pids"),
                                            QStringLiteral("cpus")};
        QTest::newRow("pids") << QByteArray("unenforced=2") << 2 << 2
                              << QStringList{QStringLiteral("pids")};
        // Unknown bits: not ours to name, so not trusted.
        QTest::newRow("unknown bits") << QByteArray("unenforced=8") << 0 << -1 << QStringList();
        QTest::newRow("words") << QByteArray("unenforced=all") << -1 << -1 << QStringList();
    }

    void unenforcedLimits()
    {
        QFETCH(QByteArray, payload);
        QFETCH(int, fromExitFrame);
        QFETCH(int, fromLimitsFrame);
        QFETCH(QStringList, names);
        const auto status = LauncherExitStatus::parse("exit=0 " + payload);
        QCOMPARE(status ? status->unenforcedLimits : -1, fromExitFrame);
        QCOMPARE(LauncherExitStatus::parseUnenforced(payload).value_or(-1), fromLimitsFrame);
        QCOMPARE(LauncherExitStatus::limitNames(std::max(0, fromLimitsFrame)), names);
    }
};

QTEST_GUILESS_MAIN(tst_LauncherProtocol)
#include "tst_LauncherProtocol.moc"
