#include "runtime/DockerRuntime.h"
#include "sandbox/EgressCarrier.h"
#include "StandInEngine.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <cstddef>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <utility>

using namespace csm;

namespace {

// A stand-in engine CLI whose `exec` runs `body` (a shell script's lines) instead of reaching a
// container: the real carrier (the launcher's --egress-carrier) on this machine, or a hostile
// one.
QString writeCli(const QTemporaryDir& dir, const QByteArray& body)
{
    const QString path = dir.filePath(QStringLiteral("engine"));
    return writeStandInEngine(path, "#!/bin/sh\n[ \"$1\" = exec ] || exit 3\n" + body) ? path
                                                                                       : QString();
}

// The abstract socket each test's carrier listens on: tests run on the host, so their names
// must not meet another test's.
QByteArray uniqueSocketName()
{
    static int count = 0;
    return "csm-test-carrier-" + QByteArray::number(QCoreApplication::applicationPid()) + '-' +
           QByteArray::number(++count);
}

QByteArray realCarrier(const QByteArray& socketName)
{
    return "exec '" CSM_LAUNCHER_BINARY "' --egress-carrier @" + socketName + "\n";
}

// The launcher's relay: connects to the carrier's abstract socket.
int connectToCarrier(const QByteArray& name)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    memcpy(address.sun_path + 1, name.constData(), size_t(name.size()));
    const auto length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + size_t(name.size()));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), length) != 0) {
        ::close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

// The EgressEndpoint's socket, where the proxy would be: a plain listener the test drives.
int listenAt(const QString& path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray bytes = QFile::encodeName(path);
    memcpy(address.sun_path, bytes.constData(), size_t(bytes.size()));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(fd, 8) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

int acceptOne(int listener)
{
    int fd = -1;
    (void)QTest::qWaitFor(
        [&] { return (fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK)) >= 0; }, 10000);
    return fd;
}

// Reads (letting the event loop run) until `size` bytes came, the end came, or 20 s passed.
QByteArray readSome(int fd, qsizetype size, bool* ended = nullptr)
{
    QByteArray got;
    char buffer[65536];
    (void)QTest::qWaitFor(
        [&] {
            for (;;) {
                const ssize_t n = ::read(fd, buffer, sizeof buffer);
                if (n > 0) {
                    got.append(buffer, n);
                    continue;
                }
                if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                    if (ended)
                        *ended = true;
                    return true;
                }
                return got.size() >= size;
            }
        },
        20000);
    return got;
}

bool readsTheEnd(int fd)
{
    bool ended = false;
    const QByteArray rest = readSome(fd, 1 << 30, &ended);
    return ended && rest.isEmpty();
}

// Writes all of `bytes` (letting the event loop run while the socket is full).
bool writeAll(int fd, const QByteArray& bytes)
{
    qsizetype done = 0;
    (void)QTest::qWaitFor(
        [&] {
            while (done < bytes.size()) {
                const ssize_t n =
                    ::write(fd, bytes.constData() + done, size_t(bytes.size() - done));
                if (n <= 0)
                    return false;
                done += n;
            }
            return true;
        },
        20000);
    return done == bytes.size();
}

QByteArray pattern(qsizetype size, char seed)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (qsizetype i = 0; i < size; ++i)
        bytes[i] = char(seed + i * 7 + (i >> 12));
    return bytes;
}

// A real carrier (run by a stand-in engine CLI) with one program connection through it to a
// proxy socket the test drives: `program` is the relay's end, `served` the proxy's.
struct CarriedConnection
{
    QTemporaryDir dir;
    QByteArray name = uniqueSocketName();
    DockerRuntime runtime{writeCli(dir, realCarrier(name))};
    QString proxyPath = dir.filePath(QStringLiteral("proxy"));
    int proxy = listenAt(proxyPath);
    EgressCarrier carrier{runtime, QStringLiteral("c1"), proxyPath};
    int program = -1;
    int served = -1;

    // Starts the carrier and connects through it; false if any step failed.
    bool connect()
    {
        carrier.start();
        if (proxy < 0 || !QTest::qWaitFor([this] { return carrier.isCarrying(); }, 10000))
            return false;
        program = connectToCarrier(name);
        served = program >= 0 ? acceptOne(proxy) : -1;
        return served >= 0;
    }

    ~CarriedConnection()
    {
        for (int fd : {program, served, proxy}) {
            if (fd >= 0)
                ::close(fd);
        }
    }
};

} // namespace

class TestEgressCarrier : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // A program's connection reaches the proxy's socket through the carrier and back: the
    // request, its end (the proxy may still answer after it), an answer larger than the window
    // (so it moves only as it is acknowledged), and the proxy's end.
    void aConnectionTravelsBothWaysThroughTheCarrier()
    {
        CarriedConnection c;
        QVERIFY(c.connect());
        const int program = c.program;
        const int served = c.served;
        EgressCarrier& carrier = c.carrier;
        QCOMPARE(carrier.connectionCount(), 1);

        const QByteArray request = "CONNECT example.org:443 HTTP/1.1\r\n\r\n";
        QVERIFY(writeAll(program, request));
        QCOMPARE(readSome(served, request.size()), request);
        ::shutdown(program, SHUT_WR);
        QVERIFY(readsTheEnd(served));

        const QByteArray answer = pattern(3 * CSM_CARRIER_WINDOW + 12345, 'a');
        QByteArray received;
        qsizetype written = 0;
        char buffer[65536];
        // Both at once, without blocking: the answer is larger than what the sockets and the
        // window hold.
        QVERIFY(QTest::qWaitFor(
            [&] {
                if (written < answer.size()) {
                    const ssize_t n = ::write(served, answer.constData() + written,
                                              size_t(answer.size() - written));
                    if (n > 0)
                        written += n;
                }
                ssize_t n;
                while ((n = ::read(program, buffer, sizeof buffer)) > 0)
                    received.append(buffer, n);
                return received.size() >= answer.size();
            },
            30000));
        QCOMPARE(received.size(), answer.size());
        QVERIFY(received == answer);
        ::close(std::exchange(c.served, -1));
        QVERIFY(readsTheEnd(program));
        QTRY_COMPARE(carrier.connectionCount(), 0);
        QVERIFY(carrier.error().isEmpty());
    }

    // The proxy ends a connection while the program is still sending (a refusal after a
    // question, say), with a window's worth of the program's bytes not yet written: those are
    // acknowledged all the same, so the carrier reads on to the program's end and the connection
    // is done on both sides, not left half-open.
    void theProxyEndingFirstLeavesNothingOpen()
    {
        CarriedConnection c;
        QVERIFY(c.connect());
        const int program = c.program;
        EgressCarrier& carrier = c.carrier;
        // The program sends until everything on the way is full: the proxy reads nothing.
        const QByteArray chunk(65536, 'u');
        qint64 sent = 0;
        QTest::qWait(200);
        for (int quiet = 0; quiet < 10;) {
            const ssize_t n = ::write(program, chunk.constData(), size_t(chunk.size()));
            if (n > 0) {
                sent += n;
                quiet = 0;
            } else {
                ++quiet;
                QTest::qWait(50);
            }
        }
        QVERIFY2(sent > CSM_CARRIER_WINDOW, QByteArray::number(sent).constData());
        ::close(std::exchange(c.served, -1));
        QVERIFY(readsTheEnd(program));
        // The rest of what the program sends goes nowhere, and its end ends the connection.
        QVERIFY(writeAll(program, "more"));
        ::shutdown(program, SHUT_WR);
        QTRY_COMPARE_WITH_TIMEOUT(carrier.connectionCount(), 0, 10000);
        QVERIFY(carrier.error().isEmpty());
    }

    // Nothing listens where the proxy should be (the endpoint is gone): the program's connection
    // is closed, and the carrier goes on.
    void aConnectionTheProxyCannotTakeIsClosed()
    {
        QTemporaryDir dir;
        const QByteArray name = uniqueSocketName();
        DockerRuntime runtime(writeCli(dir, realCarrier(name)));
        EgressCarrier carrier(runtime, QStringLiteral("c2"), dir.filePath(QStringLiteral("none")));
        carrier.start();
        QTRY_VERIFY_WITH_TIMEOUT(carrier.isCarrying(), 10000);
        const int program = connectToCarrier(name);
        QVERIFY(program >= 0);
        QVERIFY(readsTheEnd(program));
        QTRY_COMPARE(carrier.connectionCount(), 0);
        QVERIFY(carrier.isCarrying());
        ::close(program);
    }

    // A cold container the engine is still creating: `exec` fails until it runs, and the carrier
    // is started again until it does.
    void aContainerNotRunningYetIsTriedAgain()
    {
        QTemporaryDir dir;
        const QByteArray name = uniqueSocketName();
        const QByteArray count = QFile::encodeName(dir.filePath(QStringLiteral("count")));
        DockerRuntime runtime(writeCli(
            dir,
            "n=$(cat '" + count + "' 2>/dev/null || echo 0)\necho $((n + 1)) > '" + count +
                "'\nif [ $n -lt 2 ]; then echo 'Error: No such container: c3' >&2; exit 1; fi\n" +
                realCarrier(name)));
        EgressCarrier carrier(runtime, QStringLiteral("c3"), dir.filePath(QStringLiteral("p")));
        carrier.start();
        QTRY_VERIFY_WITH_TIMEOUT(carrier.isCarrying(), 10000);
        QFile counter(QFile::decodeName(count));
        QVERIFY(counter.open(QIODevice::ReadOnly));
        QCOMPARE(counter.readAll().trimmed(), QByteArray("3"));
    }

    // The carrier runs as the program's user: a stream that breaks the protocol ends it (and the
    // container's network), not the server, and it is not started again.
    void aCarrierThatBreaksTheProtocolIsEndedForGood_data()
    {
        QTest::addColumn<QByteArray>("frames");
        QTest::addColumn<QString>("why");
        const QByteArray hello = "printf 'H\\000\\000\\000\\000\\000\\000\\000\\000'\n";
        const QByteArray open1 = "printf 'O\\000\\000\\000\\001\\000\\000\\000\\000'\n";
        QTest::newRow("data for a connection never opened")
            << hello + "printf 'D\\000\\000\\000\\011\\000\\000\\000\\001x'\n"
            << QStringLiteral("never opened");
        QTest::newRow("an id opened twice")
            << hello + open1 + open1 << QStringLiteral("opened again");
        QTest::newRow("frames before the hello") << open1 << QStringLiteral("before the hello");
        QTest::newRow("more acknowledged than sent")
            << hello + open1 +
                   "printf 'A\\000\\000\\000\\001\\000\\000\\000\\004\\000\\000\\000\\001'\n"
            << QStringLiteral("more acknowledged");
        // The proxy takes nothing, and the carrier sends on regardless of the window.
        QTest::newRow("data beyond the window")
            << hello + open1 +
                   "i=0; while [ $i -lt 48 ]; do printf "
                   "'D\\000\\000\\000\\001\\000\\001\\000\\000';"
                   " head -c 65536 /dev/zero; i=$((i + 1)); done\n"
            << QStringLiteral("window");
        QTest::newRow("an unknown frame")
            << hello + "printf 'Q\\000\\000\\000\\000\\000\\000\\000\\000'\n"
            << QStringLiteral("unknown frame type");
    }

    void aCarrierThatBreaksTheProtocolIsEndedForGood()
    {
        QFETCH(QByteArray, frames);
        QFETCH(QString, why);
        QTemporaryDir dir;
        const QByteArray count = QFile::encodeName(dir.filePath(QStringLiteral("count")));
        DockerRuntime runtime(
            writeCli(dir, "echo x >> '" + count + "'\n" + frames + "exec sleep 30\n"));
        const QString proxyPath = dir.filePath(QStringLiteral("proxy"));
        const int proxy = listenAt(proxyPath); // never accepts: takes nothing
        EgressCarrier carrier(runtime, QStringLiteral("c4"), proxyPath);
        carrier.start();
        QTRY_VERIFY_WITH_TIMEOUT(!carrier.error().isEmpty(), 10000);
        QVERIFY2(carrier.error().contains(why), qPrintable(carrier.error()));
        QVERIFY(!carrier.isCarrying() || carrier.connectionCount() <= 1);
        // Ended, and never started again.
        QTRY_COMPARE(carrier.connectionCount(), 0);
        QTest::qWait(600);
        QFile counter(QFile::decodeName(count));
        QVERIFY(counter.open(QIODevice::ReadOnly));
        QCOMPARE(counter.readAll(), QByteArray("x\n"));
        ::close(proxy);
    }
};

QTEST_GUILESS_MAIN(TestEgressCarrier)
#include "tst_EgressCarrier.moc"
