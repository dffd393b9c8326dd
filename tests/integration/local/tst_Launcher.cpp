// csm-launch itself, run on the host with /bin/sh as the interpreter: its frames are what the
// server decodes. (Inside real containers it is exercised by the integration tests.)
#include "csm/egress_carrier_protocol.h"
#include "csm/launcher_protocol.h"
#include "runtime/NodeInterpreterDriver.h"
#include "runtime/PythonBootstrap.h"
#include "sandbox/LauncherExitStatus.h"
#include "sandbox/LauncherRequest.h"
#include "sandbox/LauncherStreamDecoder.h"
#include "sandbox/OutputFileCollector.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QLocalSocket>
#include <QMap>
#include <QProcess>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtEndian>
#include <QTest>

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

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
                    const QStringList& interpreter = {QStringLiteral("/bin/sh")},
                    const QList<InputFile>& files = {}, const QString& workdir = {})
{
    QProcess process;
    if (!workdir.isEmpty())
        process.setWorkingDirectory(workdir);
    process.start(QStringLiteral(CSM_LAUNCHER_BINARY),
                  options + QStringList{QStringLiteral("--")} + interpreter);
    process.waitForStarted();
    process.write(LauncherRequest::encode(program, files));
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
// csm-launch in --listen mode, as a warm pool's container runs it, and the host's connection.
class ListeningLauncher
{
public:
    ListeningLauncher(const QStringList& options, const QStringList& interpreter)
        : m_socketPath(m_folder.filePath(QStringLiteral("sock")))
    {
        m_process.start(QStringLiteral(CSM_LAUNCHER_BINARY),
                        QStringList{QStringLiteral("--listen"), m_socketPath} + options +
                            QStringList{QStringLiteral("--")} + interpreter);
    }
    ~ListeningLauncher()
    {
        m_process.kill();
        m_process.waitForFinished(5'000);
    }

    // Connects once the launcher listens.
    bool connectToLauncher()
    {
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < 10'000) {
            m_socket.connectToServer(m_socketPath);
            if (m_socket.waitForConnected(1'000))
                return true;
            QTest::qWait(10);
        }
        return false;
    }
    // The frames that arrive within `ms`, up to the first of type `last`.
    QList<LauncherStreamDecoder::Frame> framesWithin(int ms, Type last = Type::Exit)
    {
        QElapsedTimer clock;
        clock.start();
        QList<LauncherStreamDecoder::Frame> frames;
        while (clock.elapsed() < ms && m_socket.state() == QLocalSocket::ConnectedState) {
            m_socket.waitForReadyRead(int(std::max<qint64>(1, ms - clock.elapsed())));
            m_decoder.append(m_socket.readAll());
            while (const auto frame = m_decoder.next())
                frames.append(*frame);
            if (!frames.isEmpty() && frames.constLast().type == last)
                break;
        }
        return frames;
    }
    void send(const QByteArray& program) { write(LauncherRequest::encode(program, {})); }
    // A session's message: 'C' and a cell's request, or 'I'.
    void write(const QByteArray& bytes)
    {
        m_socket.write(bytes);
        m_socket.flush();
    }
    // The host ends a pooled session by closing its connection.
    void disconnectFromLauncher() { m_socket.disconnectFromServer(); }
    QProcess& process() { return m_process; }

private:
    QTemporaryDir m_folder;
    QString m_socketPath;
    QProcess m_process;
    QLocalSocket m_socket;
    LauncherStreamDecoder m_decoder;
};

// csm-launch --session with a real session driver (by default Python's, with the host's
// python3), in a folder of its own: cells go in on its stdin, frames come back on its stdout.
class SessionLauncher
{
public:
    explicit SessionLauncher(const QStringList& driver = PythonBootstrap::sessionCommand())
    {
        QDir(m_folder.path()).mkdir(QStringLiteral("out"));
        m_process.setWorkingDirectory(m_folder.path());
        m_process.start(QStringLiteral(CSM_LAUNCHER_BINARY),
                        QStringList{QStringLiteral("--session"), QStringLiteral("--ready-fd"),
                                    QStringLiteral("3"), QStringLiteral("--out-dir"),
                                    m_folder.filePath(QStringLiteral("out")),
                                    QStringLiteral("--")} +
                            driver);
    }
    ~SessionLauncher()
    {
        m_process.kill();
        m_process.waitForFinished(5'000);
    }

    QString folder() const { return m_folder.path(); }
    QProcess& process() { return m_process; }

    // Frames until one of type `last` (or the launcher's end), within `ms`.
    QList<LauncherStreamDecoder::Frame> framesUntil(Type last, int ms = 20'000)
    {
        QElapsedTimer clock;
        clock.start();
        QList<LauncherStreamDecoder::Frame> frames;
        while (clock.elapsed() < ms) {
            while (const auto frame = m_decoder.next()) {
                frames.append(*frame);
                if (frame->type == last)
                    return frames;
            }
            if (m_process.state() == QProcess::NotRunning && m_process.bytesAvailable() == 0)
                break;
            m_process.waitForReadyRead(50);
            m_decoder.append(m_process.readAllStandardOutput());
        }
        return frames;
    }
    void sendCell(const QByteArray& code, const QList<InputFile>& files = {})
    {
        m_process.write(QByteArray("C") + LauncherRequest::encode(code, files));
    }
    // A cell's frames, to its exit frame.
    QList<LauncherStreamDecoder::Frame> cell(const QByteArray& code,
                                             const QList<InputFile>& files = {})
    {
        sendCell(code, files);
        return framesUntil(Type::Exit);
    }
    void interrupt() { m_process.write("I"); }

private:
    QTemporaryDir m_folder;
    QProcess m_process;
    LauncherStreamDecoder m_decoder;
};

QByteArray payloadsOf(const QList<LauncherStreamDecoder::Frame>& frames, Type type)
{
    QByteArray bytes;
    for (const auto& frame : frames) {
        if (frame.type == type)
            bytes += frame.payload;
    }
    return bytes;
}

QList<Type> typesOf(const QList<LauncherStreamDecoder::Frame>& frames)
{
    QList<Type> types;
    for (const auto& frame : frames)
        types.append(frame.type);
    return types;
}

// A cgroup tree as a container sees it, with these files (path relative to the root: content).
bool writeCgroupTree(const QTemporaryDir& root, const QMap<QString, QByteArray>& files)
{
    for (auto it = files.cbegin(); it != files.cend(); ++it) {
        const QString path = root.filePath(it.key());
        QDir().mkpath(QFileInfo(path).path());
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(it.value()) != it.value().size())
            return false;
    }
    return true;
}

using CgroupFiles = QMap<QString, QByteArray>;

const QString kLimits = QStringLiteral("memory=536870912,pids=256,millicpus=1000");

// The egress carrier's frames (csm/egress_carrier_protocol.h), encoded and decoded here on their
// own: the test plays the server, and does not lean on the engine's code for it.
struct CarrierFrame
{
    char type = 0;
    quint32 id = 0;
    QByteArray payload;
};

QByteArray carrierFrame(char type, quint32 id, const QByteArray& payload = {})
{
    QByteArray frame(CSM_CARRIER_HEADER_SIZE, '\0');
    frame[0] = type;
    qToBigEndian<quint32>(id, frame.data() + 1);
    qToBigEndian<quint32>(quint32(payload.size()), frame.data() + 5);
    return frame + payload;
}

QByteArray carrierAck(quint32 id, quint32 count)
{
    QByteArray payload(CSM_CARRIER_ACK_SIZE, '\0');
    qToBigEndian<quint32>(count, payload.data());
    return carrierFrame(CSM_CARRIER_ACK, id, payload);
}

class CarrierDecoder
{
public:
    void append(const QByteArray& bytes) { m_bytes += bytes; }
    std::optional<CarrierFrame> next()
    {
        if (m_bytes.size() < CSM_CARRIER_HEADER_SIZE)
            return std::nullopt;
        const quint32 size = qFromBigEndian<quint32>(m_bytes.constData() + 5);
        if (quint64(m_bytes.size()) < quint64(CSM_CARRIER_HEADER_SIZE) + size)
            return std::nullopt;
        CarrierFrame frame{m_bytes.at(0), qFromBigEndian<quint32>(m_bytes.constData() + 1),
                           m_bytes.mid(CSM_CARRIER_HEADER_SIZE, size)};
        m_bytes.remove(0, CSM_CARRIER_HEADER_SIZE + size);
        return frame;
    }

private:
    QByteArray m_bytes;
};

// A name of the machine's abstract socket namespace no other test run uses.
QByteArray uniqueAbstractName()
{
    return "csm-tst-carrier-" + QByteArray::number(QCoreApplication::applicationPid()) + '-' +
           QByteArray::number(QRandomGenerator::global()->generate());
}

// A client of the abstract socket `name` (without its '@'), as the relay connects; -1 if none
// listens.
int connectAbstract(const QByteArray& name)
{
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path + 1, name.constData(), size_t(name.size()));
    const auto length = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + size_t(name.size()));
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<const sockaddr*>(&address), length) == 0)
        return fd;
    if (fd >= 0)
        ::close(fd);
    return -1;
}

// One client connection of the test (closed with it).
class Client
{
public:
    explicit Client(int fd = -1)
        : m_fd(fd)
    {}
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;
    ~Client() { close(); }
    int fd() const { return m_fd; }
    bool isConnected() const { return m_fd >= 0; }
    void close() { reset(-1); }
    void reset(int fd)
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = fd;
    }
    bool send(const QByteArray& bytes) const
    {
        return ::send(m_fd, bytes.constData(), size_t(bytes.size()), MSG_NOSIGNAL) == bytes.size();
    }
    // Up to `size` bytes, within `ms`; fewer at the end of the stream.
    QByteArray receive(qsizetype size, int ms = 5'000, bool* ended = nullptr) const
    {
        QByteArray bytes;
        QElapsedTimer clock;
        clock.start();
        while (bytes.size() < size && clock.elapsed() < ms) {
            pollfd ready{m_fd, POLLIN, 0};
            if (::poll(&ready, 1, int(std::max<qint64>(1, ms - clock.elapsed()))) <= 0)
                continue;
            char chunk[65536];
            const ssize_t got =
                ::recv(m_fd, chunk, size_t(std::min<qsizetype>(size - bytes.size(), 65536)), 0);
            if (got <= 0) {
                if (ended)
                    *ended = got == 0;
                break;
            }
            bytes.append(chunk, got);
        }
        return bytes;
    }
    // Whether the stream ends (nothing more, then end of file) within `ms`.
    bool endsWithin(int ms = 5'000) const
    {
        bool ended = false;
        return receive(1, ms, &ended).isEmpty() && ended;
    }

private:
    int m_fd;
};

// csm-launch --egress-carrier on an abstract socket of its own; the test is the server.
class CarrierProcess
{
public:
    explicit CarrierProcess(const QByteArray& name = uniqueAbstractName())
        : m_name(name)
    {
        m_process.start(QStringLiteral(CSM_LAUNCHER_BINARY),
                        {QStringLiteral("--egress-carrier"), QString::fromUtf8('@' + m_name)});
    }
    ~CarrierProcess()
    {
        m_process.kill();
        m_process.waitForFinished(5'000);
    }

    QByteArray name() const { return m_name; }
    QProcess& process() { return m_process; }
    void send(const QByteArray& frames)
    {
        m_process.write(frames);
        m_process.waitForBytesWritten(5'000);
    }

    // The next frame, within `ms`.
    std::optional<CarrierFrame> next(int ms = 5'000)
    {
        QElapsedTimer clock;
        clock.start();
        for (;;) {
            if (auto frame = m_decoder.next())
                return frame;
            if (clock.elapsed() >= ms)
                return std::nullopt;
            if (!m_process.waitForReadyRead(int(std::max<qint64>(1, ms - clock.elapsed()))) &&
                m_process.state() == QProcess::NotRunning) {
                m_decoder.append(m_process.readAllStandardOutput());
                return m_decoder.next();
            }
            m_decoder.append(m_process.readAllStandardOutput());
        }
    }
    // Every frame that comes within `ms`.
    QList<CarrierFrame> framesWithin(int ms)
    {
        QList<CarrierFrame> frames;
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < ms) {
            if (auto frame = next(int(std::max<qint64>(1, ms - clock.elapsed()))))
                frames.append(*frame);
        }
        return frames;
    }
    // Connects a client and reads the open frame it made: its id, 0 if none came.
    quint32 connectClient(Client& client)
    {
        client.reset(connectAbstract(m_name));
        const auto open = next();
        return client.isConnected() && open && open->type == CSM_CARRIER_OPEN &&
                       open->payload.isEmpty()
                   ? open->id
                   : 0;
    }
    bool saidHello()
    {
        const auto hello = next();
        return hello && hello->type == CSM_CARRIER_HELLO && hello->id == 0 &&
               hello->payload.isEmpty();
    }
    // The data of connection `id` until `size` bytes came, within `ms`; any other frame on the
    // way fails (it is kept in `others`).
    QByteArray dataOf(quint32 id, qsizetype size, int ms = 10'000,
                      QList<CarrierFrame>* others = nullptr)
    {
        QByteArray bytes;
        QElapsedTimer clock;
        clock.start();
        while (bytes.size() < size && clock.elapsed() < ms) {
            const auto frame = next(int(std::max<qint64>(1, ms - clock.elapsed())));
            if (!frame)
                break;
            if (frame->type == CSM_CARRIER_DATA && frame->id == id &&
                frame->payload.size() <= CSM_CARRIER_MAX_DATA)
                bytes += frame->payload;
            else if (others)
                others->append(*frame);
            else
                break;
        }
        return bytes;
    }
    // The sum of the acks of connection `id` until it reaches `count`, within `ms`.
    quint64 acksOf(quint32 id, quint64 count, int ms = 5'000)
    {
        quint64 acked = 0;
        QElapsedTimer clock;
        clock.start();
        while (acked < count && clock.elapsed() < ms) {
            const auto frame = next(int(std::max<qint64>(1, ms - clock.elapsed())));
            if (!frame || frame->type != CSM_CARRIER_ACK || frame->id != id ||
                frame->payload.size() != CSM_CARRIER_ACK_SIZE)
                break;
            acked += qFromBigEndian<quint32>(frame->payload.constData());
        }
        return acked;
    }

private:
    QByteArray m_name;
    QProcess m_process;
    CarrierDecoder m_decoder;
};

bool isFrame(const std::optional<CarrierFrame>& frame, char type, quint32 id)
{
    return frame && frame->type == type && frame->id == id && frame->payload.isEmpty();
}

// A port of the loopback nobody listens on now.
quint16 freeLoopbackPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = qToBigEndian<quint32>(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    quint16 port = 0;
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
        port = qFromBigEndian(address.sin_port);
    ::close(fd);
    return port;
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

    void measuresTheProgramsOwnTime()
    {
        // The host may read the started and exit frames in one go: the launcher's own measure
        // is what says how long the program ran.
        const LaunchResult result = launch("sleep 0.3\n");
        const auto exit = result.exit();
        QVERIFY(exit);
        QVERIFY(exit->elapsedMicroseconds);
        QVERIFY2(*exit->elapsedMicroseconds >= 300'000 && *exit->elapsedMicroseconds < 10'000'000,
                 qPrintable(QString::number(*exit->elapsedMicroseconds)));
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

    void enforcedLimitsLetTheProgramRun_data()
    {
        QTest::addColumn<CgroupFiles>("files");
        // What rootful Podman and Docker show on cgroup v1, and what a v2 container shows.
        QTest::newRow("cgroup v1")
            << CgroupFiles{{QStringLiteral("memory/memory.limit_in_bytes"), "536870912\n"},
                           {QStringLiteral("pids/pids.max"), "256\n"},
                           {QStringLiteral("cpu/cpu.cfs_quota_us"), "100000\n"},
                           {QStringLiteral("cpu/cpu.cfs_period_us"), "100000\n"}};
        QTest::newRow("cgroup v2") << CgroupFiles{{QStringLiteral("memory.max"), "536870912\n"},
                                                  {QStringLiteral("pids.max"), "256\n"},
                                                  {QStringLiteral("cpu.max"), "100000 100000\n"}};
        QTest::newRow("tighter than asked")
            << CgroupFiles{{QStringLiteral("memory.max"), "1048576\n"},
                           {QStringLiteral("pids.max"), "10\n"},
                           {QStringLiteral("cpu.max"), "50000 100000\n"}};
    }

    void enforcedLimitsLetTheProgramRun()
    {
        QFETCH(CgroupFiles, files);
        QTemporaryDir root;
        QVERIFY(writeCgroupTree(root, files));
        const LaunchResult result =
            launch("echo ran\n", {QStringLiteral("--limits"), kLimits,
                                  QStringLiteral("--cgroup-root"), root.path()});
        QCOMPARE(result.stdoutBytes, QByteArray("ran\n"));
        QVERIFY(result.exit());
        QCOMPARE(result.exit()->unenforcedLimits, 0);
    }

    void unenforcedLimitsRefuseTheProgram_data()
    {
        QTest::addColumn<CgroupFiles>("files");
        QTest::addColumn<int>("unenforced");
        using Limit = LauncherExitStatus::Limit;
        // Rootless Podman on cgroup v1: the caller's own cgroups, no limit anywhere.
        QTest::newRow("rootless cgroup v1")
            << CgroupFiles{{QStringLiteral("memory/memory.limit_in_bytes"),
                            "9223372036854771712\n"},
                           {QStringLiteral("cpu/cpu.cfs_quota_us"), "-1\n"},
                           {QStringLiteral("cpu/cpu.cfs_period_us"), "100000\n"}}
            << (Limit::Memory | Limit::Processes | Limit::Cpu);
        QTest::newRow("no cgroup files at all")
            << CgroupFiles{} << (Limit::Memory | Limit::Processes | Limit::Cpu);
        QTest::newRow("v2 without a pids limit")
            << CgroupFiles{{QStringLiteral("memory.max"), "536870912\n"},
                           {QStringLiteral("pids.max"), "max\n"},
                           {QStringLiteral("cpu.max"), "100000 100000\n"}}
            << int(Limit::Processes);
        QTest::newRow("a looser memory limit than asked")
            << CgroupFiles{{QStringLiteral("memory.max"), "1073741824\n"},
                           {QStringLiteral("pids.max"), "256\n"},
                           {QStringLiteral("cpu.max"), "200000 100000\n"}}
            << (Limit::Memory | Limit::Cpu);
    }

    void unenforcedLimitsRefuseTheProgram()
    {
        QFETCH(CgroupFiles, files);
        QFETCH(int, unenforced);
        QTemporaryDir root;
        QVERIFY(writeCgroupTree(root, files));
        const QStringList options{QStringLiteral("--limits"), kLimits,
                                  QStringLiteral("--cgroup-root"), root.path()};
        // The program would leave a mark: it must never run.
        const QString mark = root.filePath(QStringLiteral("ran"));
        const QByteArray program = "touch '" + mark.toUtf8() + "'\n";
        const LaunchResult refused = launch(program, options);
        QCOMPARE(refused.frames.size(), 1);
        QCOMPARE(refused.frames.constFirst().type, Type::LimitsUnenforced);
        QCOMPARE(LauncherExitStatus::parseUnenforced(refused.frames.constFirst().payload),
                 std::optional<int>(unenforced));
        QCOMPARE(refused.launcherExitCode, int(CSM_LAUNCH_EXIT_LIMITS_UNENFORCED));
        QVERIFY(!QFile::exists(mark));

        // Allowed: it runs, and its exit frame says what was missing.
        const LaunchResult allowed =
            launch(program,
                   options + QStringList{QStringLiteral("--unenforced"), QStringLiteral("allow")});
        QVERIFY(allowed.exit());
        QCOMPARE(allowed.exit()->unenforcedLimits, unenforced);
        QVERIFY(QFile::exists(mark));
    }

    void missingInterpreterIsAFailureFrame()
    {
        const LaunchResult result = launch("", {}, {QStringLiteral("/nonexistent/python3")});
        QVERIFY(!result.frames.isEmpty());
        QCOMPARE(result.frames.constLast().type, Type::Failure);
        QVERIFY(result.frames.constLast().payload.contains("/nonexistent/python3"));
        QVERIFY(result.frames.constLast().payload.contains("No such file"));
        QCOMPARE(result.launcherExitCode, int(CSM_LAUNCH_EXIT_CANNOT_EXECUTE));
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

    void placesInputFilesBeforeTheProgram()
    {
        QTemporaryDir workdir;
        const LaunchResult result =
            launch("cat data/in.txt; wc -c < blob\n", {}, {QStringLiteral("/bin/sh")},
                   {{QStringLiteral("data/in.txt"), "hello\n"},
                    {QStringLiteral("blob"), QByteArray(200'000, 'x')}},
                   workdir.path());
        QVERIFY(!result.corrupt);
        QCOMPARE(result.stdoutBytes, QByteArray("hello\n200000\n"));
        QCOMPARE(result.exit()->exitCode, 0);
    }

    void refusesAnInputPathOutsideTheWorkingDirectory()
    {
        QTemporaryDir workdir;
        const LaunchResult result = launch("echo ran\n", {}, {QStringLiteral("/bin/sh")},
                                           {{QStringLiteral("../escaped"), "x"}}, workdir.path());
        QCOMPARE(result.frames.constLast().type, Type::Failure);
        QVERIFY(result.stdoutBytes.isEmpty());
        QVERIFY(!QFileInfo::exists(QDir(workdir.path()).filePath(QStringLiteral("../escaped"))));
    }

    void sendsTheOutputFolderBackAfterTheProgram()
    {
        QTemporaryDir workdir;
        const LaunchResult result = launch(
            "printf png > out/a.png; mkdir out/sub; printf 12345 > out/sub/b.txt; "
            "ln -s /etc/passwd out/link; mkfifo out/fifo; head -c 5000 /dev/zero > out/zz-big\n",
            {QStringLiteral("--out-dir"), QStringLiteral("out"), QStringLiteral("--out-files"),
             QStringLiteral("10"), QStringLiteral("--out-bytes"), QStringLiteral("100")},
            {QStringLiteral("/bin/sh")}, {}, workdir.path());
        QVERIFY(!result.corrupt);
        QCOMPARE(result.frames.constLast().type, Type::Exit);
        QTemporaryDir host;
        OutputFileCollector collector(host.path(), {10, 100});
        for (const auto& frame : result.frames) {
            if (frame.type == Type::File)
                collector.beginFile(frame.payload);
            else if (frame.type == Type::FileData)
                collector.appendData(frame.payload);
            else if (frame.type == Type::FileSkipped)
                collector.skipFile(frame.payload);
        }
        const QList<OutputFile> files = collector.finish();
        QStringList seen;
        for (const OutputFile& file : files)
            seen.append(file.path + QLatin1Char(':') +
                        (file.isReturned() ? QString::number(file.sizeBytes) : file.skipReason));
        QCOMPARE(seen, (QStringList{
                           QStringLiteral("a.png:3"),
                           QStringLiteral("fifo:not a regular file (a FIFO, device or socket)"),
                           QStringLiteral("link:a symbolic link: not followed"),
                           QStringLiteral("sub/b.txt:5"),
                           QStringLiteral("zz-big:over the cap on the total size of output files"),
                       }));
        QFile stored(files.at(3).storedPath);
        QVERIFY(stored.open(QIODevice::ReadOnly));
        QCOMPARE(stored.readAll(), QByteArray("12345"));
    }

    void emptyProgram()
    {
        const LaunchResult result = launch("");
        QCOMPARE(result.exit()->exitCode, 0);
        QVERIFY(result.stdoutBytes.isEmpty());
    }

    void listeningLauncherIsReadyAtOnceWithoutReadyFd()
    {
        ListeningLauncher launcher({}, {QStringLiteral("/bin/sh")});
        QVERIFY(launcher.connectToLauncher());
        QCOMPARE(typesOf(launcher.framesWithin(5'000, Type::Ready)), QList{Type::Ready});
        launcher.send("echo hi");
        const auto frames = launcher.framesWithin(10'000);
        QCOMPARE(typesOf(frames), (QList{Type::Started, Type::Stdout, Type::Exit}));
        QCOMPARE(frames.at(1).payload, QByteArray("hi\n"));
    }

    // A remote engine's warm container (--listen -): no socket, the same exchange on the attached
    // stdin and stdout, the interpreter started before the request (the ready frame waits for it).
    void listeningOnStdioServesTheRequestFromStdin()
    {
        QProcess launcher;
        launcher.start(QStringLiteral(CSM_LAUNCHER_BINARY),
                       {QStringLiteral("--listen"), QStringLiteral("-"),
                        QStringLiteral("--ready-fd"), QStringLiteral("3"), QStringLiteral("--"),
                        QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                        QStringLiteral("echo started > /dev/null; printf r >&3; exec 3>&-; "
                                       "exec /bin/sh")});
        QVERIFY(launcher.waitForStarted());
        LauncherStreamDecoder decoder;
        QList<LauncherStreamDecoder::Frame> frames;
        const auto readUntil = [&](Type last) {
            QElapsedTimer clock;
            clock.start();
            while (clock.elapsed() < 10'000 &&
                   (frames.isEmpty() || frames.constLast().type != last)) {
                launcher.waitForReadyRead(100);
                decoder.append(launcher.readAllStandardOutput());
                while (const auto frame = decoder.next())
                    frames.append(*frame);
            }
        };
        // Up at once (the engine is done), then ready before any request, as over a socket.
        readUntil(Type::Ready);
        QCOMPARE(typesOf(frames), (QList{Type::Up, Type::Ready}));
        frames.clear();
        launcher.write(LauncherRequest::encode("echo over stdio", {}));
        readUntil(Type::Exit);
        QCOMPARE(typesOf(frames), (QList{Type::Started, Type::Stdout, Type::Exit}));
        QCOMPARE(frames.at(1).payload, QByteArray("over stdio\n"));
        QVERIFY(launcher.waitForFinished(5'000));
        QCOMPARE(launcher.exitCode(), 0);
        QVERIFY(!decoder.isCorrupt());
    }

    void readyFrameWaitsForTheInterpreterToSayItIsReady()
    {
        // The interpreter takes 600 ms to "import", then says so on its ready fd.
        ListeningLauncher launcher(
            {QStringLiteral("--ready-fd"), QStringLiteral("3")},
            {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
             QStringLiteral("sleep 0.6; printf r >&3; exec 3>&-; exec /bin/sh")});
        QVERIFY(launcher.connectToLauncher());
        QElapsedTimer sinceConnected;
        sinceConnected.start();
        QVERIFY(launcher.framesWithin(300).isEmpty()); // still "importing"
        QCOMPARE(typesOf(launcher.framesWithin(5'000, Type::Ready)), QList{Type::Ready});
        QVERIFY2(sinceConnected.elapsed() >= 400,
                 qPrintable(QString::number(sinceConnected.elapsed())));
        launcher.send("echo ready-fd=$CSM_READY_FD");
        const auto frames = launcher.framesWithin(10'000);
        QCOMPARE(typesOf(frames), (QList{Type::Started, Type::Stdout, Type::Exit}));
        QCOMPARE(frames.at(1).payload, QByteArray("ready-fd=3\n"));
    }

    void interpreterThatEndsWithoutSayingSoStillEndsTheWait()
    {
        // Closing the ready fd (or dying) ends the wait: the call learns the rest from its exit.
        ListeningLauncher launcher({QStringLiteral("--ready-fd"), QStringLiteral("3")},
                                   {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                    QStringLiteral("exec 3>&-; exec /bin/sh")});
        QVERIFY(launcher.connectToLauncher());
        QCOMPARE(typesOf(launcher.framesWithin(5'000, Type::Ready)), QList{Type::Ready});
    }

    void requestBeforeReadinessIsServedAtOnce()
    {
        // This interpreter never says it is ready: a call that took the container anyway runs.
        ListeningLauncher launcher({QStringLiteral("--ready-fd"), QStringLiteral("3")},
                                   {QStringLiteral("/bin/sh")});
        QVERIFY(launcher.connectToLauncher());
        launcher.send("echo early");
        const auto frames = launcher.framesWithin(10'000);
        QCOMPARE(typesOf(frames), (QList{Type::Started, Type::Stdout, Type::Exit}));
        QCOMPARE(frames.at(1).payload, QByteArray("early\n"));
        QCOMPARE(LauncherExitStatus::parse(frames.at(2).payload)->exitCode, 0);
    }

    void sessionKeepsStateAndShowsAFinalExpression()
    {
        SessionLauncher session;
        QCOMPARE(typesOf(session.framesUntil(Type::Ready)), QList{Type::Ready});
        auto frames =
            session.cell("x = 41\nimport math\ndef area(r):\n    return math.pi * r * r\n");
        QCOMPARE(typesOf(frames), (QList{Type::Started, Type::Exit}));
        QVERIFY2(frames.last().payload.startsWith("exit=0 ") &&
                     frames.last().payload.contains(" session=1"),
                 frames.last().payload.constData());
        // The memory the session holds, where the cgroup shows it, which the host can read.
        const auto status = LauncherExitStatus::parse(frames.last().payload);
        QVERIFY(status);
        QVERIFY(!frames.last().payload.contains("memory=") || status->memoryBytes.value_or(0) > 0);
        frames = session.cell("x + 1");
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray("42\n"));
        // Each cell's own time, from its started frame to its end.
        frames = session.cell("import time; time.sleep(0.2)");
        const auto slept = LauncherExitStatus::parse(frames.last().payload);
        QVERIFY(slept && slept->elapsedMicroseconds);
        QVERIFY2(*slept->elapsedMicroseconds >= 200'000 && *slept->elapsedMicroseconds < 10'000'000,
                 frames.last().payload.constData());
        frames = session.cell("print('r=2'); round(area(2), 2)");
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray("r=2\n12.57\n"));
        frames = session.cell("x = None\nx"); // None shows nothing, as in a notebook
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray());
    }

    void anExceptionEndsTheCellNotTheSession()
    {
        SessionLauncher session;
        session.framesUntil(Type::Ready);
        session.cell("kept = 'yes'");
        auto frames = session.cell("a = 1\n1 / 0\n");
        QVERIFY2(frames.last().payload.startsWith("exit=1 "), frames.last().payload.constData());
        QVERIFY(frames.last().payload.contains(" session=1"));
        const QByteArray trace = payloadsOf(frames, Type::Stderr);
        QVERIFY2(trace.contains("File \"<cell 2>\", line 2") && trace.contains("1 / 0") &&
                     trace.contains("ZeroDivisionError"),
                 trace.constData());
        QVERIFY2(!trace.contains("<string>"), trace.constData()); // not the driver's own lines
        QCOMPARE(payloadsOf(session.cell("print(kept, a)"), Type::Stdout), QByteArray("yes 1\n"));
    }

    void interruptStopsTheCellAndKeepsTheState()
    {
        SessionLauncher session;
        session.framesUntil(Type::Ready);
        session.cell("y = 5");
        session.sendCell("import sys, time\nsys.stdout.write('looping\\n')\nwhile True:\n    "
                         "time.sleep(0.02)\n");
        QCOMPARE(payloadsOf(session.framesUntil(Type::Stdout), Type::Stdout),
                 QByteArray("looping\n"));
        session.interrupt();
        const auto frames = session.framesUntil(Type::Exit, 10'000);
        QVERIFY(!frames.isEmpty() && frames.last().type == Type::Exit);
        QVERIFY2(frames.last().payload.startsWith("exit=1 "), frames.last().payload.constData());
        QVERIFY(payloadsOf(frames, Type::Stderr).contains("KeyboardInterrupt"));
        QCOMPARE(payloadsOf(session.cell("y"), Type::Stdout), QByteArray("5\n"));
    }

    void pooledSessionTakesItsCellsOnTheHostsConnection_data()
    {
        QTest::addColumn<QStringList>("driver");
        QTest::addColumn<QByteArray>("define");
        QTest::addColumn<QByteArray>("use");
        QTest::newRow("python") << PythonBootstrap::sessionCommand() << QByteArray("x = 41")
                                << QByteArray("x + 1");
        QTest::newRow("javascript")
            << NodeInterpreterDriver::command() << QByteArray("let x = 41;") << QByteArray("x + 1");
    }

    void pooledSessionTakesItsCellsOnTheHostsConnection()
    {
        // A warm pool's session: its driver starts before any call, the ready frame waits for
        // it, cells come on the host's connection, and closing the connection ends it all.
        QFETCH(QStringList, driver);
        QFETCH(QByteArray, define);
        QFETCH(QByteArray, use);
        ListeningLauncher launcher(
            {QStringLiteral("--session"), QStringLiteral("--ready-fd"), QStringLiteral("3")},
            driver);
        QVERIFY(launcher.connectToLauncher());
        QCOMPARE(typesOf(launcher.framesWithin(20'000, Type::Ready)), QList{Type::Ready});
        launcher.write("C" + LauncherRequest::encode(define, {}));
        auto frames = launcher.framesWithin(10'000);
        QCOMPARE(typesOf(frames).constLast(), Type::Exit);
        QVERIFY2(frames.last().payload.contains(" session=1"), frames.last().payload.constData());
        launcher.write("C" + LauncherRequest::encode(use, {}));
        frames = launcher.framesWithin(10'000);
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray("42\n"));

        // An interrupt on the connection stops a running cell, and the state stays.
        launcher.write("C" + LauncherRequest::encode(
                                 driver.contains(QStringLiteral("python3"))
                                     // One write: print() writes the text and its
                                     // end apart, two frames under load.
                                     ? QByteArray("import sys, time\n"
                                                  "sys.stdout.write('looping\\n')\n"
                                                  "sys.stdout.flush()\n"
                                                  "while True:\n    time.sleep(0.02)\n")
                                     : QByteArray("console.log('looping');\nwhile (true) {}\n"),
                                 {}));
        QCOMPARE(payloadsOf(launcher.framesWithin(10'000, Type::Stdout), Type::Stdout),
                 QByteArray("looping\n"));
        launcher.write("I");
        frames = launcher.framesWithin(10'000);
        QVERIFY(!frames.isEmpty() && frames.last().type == Type::Exit);
        QVERIFY2(frames.last().payload.contains(" session=1"), frames.last().payload.constData());
        launcher.write("C" + LauncherRequest::encode(use, {}));
        QCOMPARE(payloadsOf(launcher.framesWithin(10'000), Type::Stdout), QByteArray("42\n"));

        launcher.disconnectFromLauncher();
        QVERIFY(launcher.process().waitForFinished(10'000));
        QCOMPARE(launcher.process().exitCode(), 0);
    }

    void pooledSessionOnUnenforcedLimitsNeverRunsACell()
    {
        QTemporaryDir root;
        QVERIFY(writeCgroupTree(root, {}));
        const QString mark = root.filePath(QStringLiteral("ran"));
        ListeningLauncher launcher({QStringLiteral("--session"), QStringLiteral("--ready-fd"),
                                    QStringLiteral("3"), QStringLiteral("--limits"), kLimits,
                                    QStringLiteral("--cgroup-root"), root.path()},
                                   PythonBootstrap::sessionCommand());
        QVERIFY(launcher.connectToLauncher());
        // It waits as any pooled container does; its first cell is refused.
        QCOMPARE(typesOf(launcher.framesWithin(20'000, Type::Ready)), QList{Type::Ready});
        launcher.write("C" + LauncherRequest::encode("open('" + mark.toUtf8() + "', 'w')", {}));
        const auto frames = launcher.framesWithin(10'000, Type::LimitsUnenforced);
        QCOMPARE(typesOf(frames), QList{Type::LimitsUnenforced});
        QVERIFY(launcher.process().waitForFinished(10'000));
        QCOMPARE(launcher.process().exitCode(), int(CSM_LAUNCH_EXIT_LIMITS_UNENFORCED));
        QVERIFY(!QFile::exists(mark));
    }

    void aCellCannotForgeItsEnd_data()
    {
        QTest::addColumn<QStringList>("driver");
        QTest::addColumn<QByteArray>("forging");
        QTest::addColumn<QByteArray>("next");
        QTest::addColumn<QByteArray>("status");
        // Each writes ends of the old form (no tag) and of the new with a tag of its own making
        // on the driver's report descriptor, during its cell and then, from a timer or thread,
        // between cells; then it goes on, prints and fails. (Node's driver reopens it through
        // /proc, so it is the write-only pipe opened with O_LARGEFILE, 0o100000 on x86-64 and
        // 0o400000 on arm64; libuv's own are not.)
        QTest::newRow("python")
            << PythonBootstrap::sessionCommand()
            << QByteArray(
                   "import os, threading, time\n"
                   "def forge():\n"
                   "    for end in (b'e\\0\\0\\0\\0', b'e' + bytes(12), b'e' + b'\\xff' * 12):\n"
                   "        os.write(3, end)\n"
                   "forge()\n"
                   "print('forged', flush=True)\n"
                   "time.sleep(0.3)\n"
                   "print('after')\n"
                   "threading.Timer(0.2, forge).start()\n"
                   "os.write(3, b'x' * 250)  # the real end right behind it: one read\n"
                   "raise SystemExit(3)\n")
            << QByteArray("import time; time.sleep(0.5); print('next')") << QByteArray("exit=3 ");
        QTest::newRow("javascript")
            << NodeInterpreterDriver::command()
            << QByteArray("const fs = require('fs');\n"
                          "const forge = () => {\n"
                          "  let pipes = 0;\n"
                          "  for (const fd of fs.readdirSync('/proc/self/fd').map(Number)) {\n"
                          "    if (fd <= 2) continue;\n"
                          "    try {\n"
                          "      const info = fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');\n"
                          "      const flags = parseInt(/flags:\\s+(\\d+)/.exec(info)[1], 8);\n"
                          "      const largeFile = process.arch === 'x64' ? 0o100000 : 0o400000;\n"
                          "      if ((flags & 3) !== 1 || !(flags & largeFile)) continue;\n"
                          "      if (!fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith('pipe:')) "
                          "continue;\n"
                          "      fs.writeSync(fd, Buffer.from('e\\0\\0\\0\\0', 'latin1'));\n"
                          "      fs.writeSync(fd, Buffer.from('e' + '\\0'.repeat(12), 'latin1'));\n"
                          "      pipes += 1;\n"
                          "    } catch {}\n"
                          "  }\n"
                          "  return pipes;\n"
                          "};\n"
                          "console.log('forged', forge() === 1 ? '' : 'elsewhere');\n"
                          "await new Promise((done) => setTimeout(done, 300));\n"
                          "console.log('after');\n"
                          "setTimeout(forge, 200);\n"
                          "throw new Error('late');\n")
            << QByteArray("await new Promise((done) => setTimeout(done, 500)); "
                          "console.log('next');")
            << QByteArray("exit=1 ");
    }

    void aCellCannotForgeItsEnd()
    {
        // The program runs in the driver's process and holds its report descriptor; only an end
        // with the cell's own tag ends a cell.
        QFETCH(QStringList, driver);
        QFETCH(QByteArray, forging);
        QFETCH(QByteArray, next);
        QFETCH(QByteArray, status);
        SessionLauncher session(driver);
        session.framesUntil(Type::Ready);
        auto frames = session.cell(forging);
        QCOMPARE(payloadsOf(frames, Type::Stdout).simplified(), QByteArray("forged after"));
        QVERIFY2(frames.last().payload.startsWith(status) &&
                     frames.last().payload.contains(" session=1"),
                 frames.last().payload.constData());
        // Ends written between cells end nothing: the next cell runs to its own end.
        QTest::qWait(400);
        frames = session.cell(next);
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray("next\n"));
        QVERIFY2(frames.last().payload.startsWith("exit=0 "), frames.last().payload.constData());
        QCOMPARE(payloadsOf(session.cell(driver.contains(QStringLiteral("node"))
                                             ? QByteArray("console.log(1 + 1)")
                                             : QByteArray("print(1 + 1)")),
                            Type::Stdout),
                 QByteArray("2\n"));
    }

    void aDriverThatDiesEndsTheSession_data()
    {
        QTest::addColumn<QStringList>("driver");
        QTest::addColumn<QByteArray>("code");
        QTest::newRow("python") << PythonBootstrap::sessionCommand()
                                << QByteArray("import os\nprint('bye', flush=True)\nos._exit(3)\n");
        QTest::newRow("javascript") << NodeInterpreterDriver::command()
                                    << QByteArray("console.log('bye');\nprocess.exit(3);\n");
    }

    void aDriverThatDiesEndsTheSession()
    {
        QFETCH(QStringList, driver);
        QFETCH(QByteArray, code);
        SessionLauncher session(driver);
        session.framesUntil(Type::Ready);
        const auto frames = session.cell(code);
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray("bye\n"));
        QVERIFY2(frames.last().payload.startsWith("exit=3 ") &&
                     frames.last().payload.endsWith(" session=0"),
                 frames.last().payload.constData());
        QVERIFY(session.process().waitForFinished(5'000));
    }

    void eachCellReturnsTheFilesItMadeAndGetsItsOwn()
    {
        SessionLauncher session;
        session.framesUntil(Type::Ready);
        auto frames = session.cell("print(open('data.txt').read())\n"
                                   "n = open('" +
                                       session.folder().toUtf8() + "/out/a.txt', 'w').write('A')\n",
                                   {{QStringLiteral("data.txt"), "one"}});
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray("one\n"));
        QCOMPARE(payloadsOf(frames, Type::FileData), QByteArray("A"));
        // The next cell replaces the input file, and returns no file it did not make.
        frames =
            session.cell("print(open('data.txt').read())", {{QStringLiteral("data.txt"), "two"}});
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray("two\n"));
        QVERIFY(!typesOf(frames).contains(Type::File));
    }

    void init()
    {
        // The js... tests and the javascript rows run the JavaScript session driver with the
        // host's node.
        const bool javaScript = QByteArray(QTest::currentTestFunction()).startsWith("js") ||
                                qstrcmp(QTest::currentDataTag(), "javascript") == 0;
        if (javaScript && QStandardPaths::findExecutable(QStringLiteral("node")).isEmpty())
            QSKIP("no node on this machine");
    }

    void jsSessionKeepsStateAndShowsAFinalExpression()
    {
        SessionLauncher session(NodeInterpreterDriver::command());
        QCOMPARE(typesOf(session.framesUntil(Type::Ready)), QList{Type::Ready});
        auto frames = session.cell("let x = 41;\nconst label = 'r';\nfunction area(r) {\n"
                                   "  return Math.PI * r * r;\n}\n");
        QCOMPARE(typesOf(frames), (QList{Type::Started, Type::Exit}));
        QVERIFY2(frames.last().payload.startsWith("exit=0 ") &&
                     frames.last().payload.contains(" session=1"),
                 frames.last().payload.constData());
        QCOMPARE(payloadsOf(session.cell("x + 1"), Type::Stdout), QByteArray("42\n"));
        QCOMPARE(payloadsOf(session.cell("console.log(label + '=2'); +area(2).toFixed(2)"),
                            Type::Stdout),
                 QByteArray("r=2\n12.57\n"));
        // Top-level await, and what it declares stays for the next cell.
        frames = session.cell("const later = await new Promise((resolve) => "
                              "setTimeout(() => resolve({ n: x }), 20));");
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray());
        QCOMPARE(payloadsOf(session.cell("later"), Type::Stdout), QByteArray("{ n: 41 }\n"));
        // A cell may declare a name again, as when it is run a second time.
        QCOMPARE(payloadsOf(session.cell("const later = 'again'; later"), Type::Stdout),
                 QByteArray("'again'\n"));
        QCOMPARE(payloadsOf(session.cell("let y; y"), Type::Stdout), QByteArray()); // undefined
        QCOMPARE(payloadsOf(session.cell("[1n, -0, null, [x]]"), Type::Stdout),
                 QByteArray("[ 1n, -0, null, [ 41 ] ]\n"));
    }

    void jsAnExceptionEndsTheCellNotTheSession()
    {
        SessionLauncher session(NodeInterpreterDriver::command());
        session.framesUntil(Type::Ready);
        session.cell("const kept = 'yes';");
        auto frames = session.cell("let a = 1;\nnull.length;\n");
        QVERIFY2(frames.last().payload.startsWith("exit=1 "), frames.last().payload.constData());
        QVERIFY(frames.last().payload.contains(" session=1"));
        QByteArray trace = payloadsOf(frames, Type::Stderr);
        QVERIFY2(trace.contains("<cell-2>:2\nnull.length;\n") && trace.contains("TypeError") &&
                     trace.contains("at <cell-2>:2:6"),
                 trace.constData());
        QVERIFY2(!trace.contains("[eval]") && !trace.contains("node:inspector"),
                 trace.constData()); // not the driver's own frames
        trace = payloadsOf(session.cell("let b = (1 +;"), Type::Stderr);
        QVERIFY2(trace.startsWith("<cell-3>:1\nlet b = (1 +;\n") && trace.contains("SyntaxError"),
                 trace.constData());
        // A timer's error comes out, and the driver goes on. What it prints between cells comes
        // with the next cell. On a loaded machine the timer may fire while a cell is still
        // finishing (its output not yet flushed): then that cell shows it and fails, as a cell
        // does that a stray error interrupts. The next cells are asked until it has come.
        frames = session.cell("setTimeout(() => { throw new Error('later'); }, 300);");
        trace = payloadsOf(frames, Type::Stderr);
        QVERIFY2(frames.last().payload.startsWith("exit=0 ") || trace.contains("Error: later"),
                 frames.last().payload.constData());
        QDeadlineTimer deadline(10'000);
        while (!trace.contains("Error: later") && !deadline.hasExpired()) {
            QTest::qWait(100);
            frames = session.cell("[kept, a]");
            QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray("[ 'yes', 1 ]\n"));
            const QByteArray more = payloadsOf(frames, Type::Stderr);
            QVERIFY2(frames.last().payload.startsWith("exit=0 ") || more.contains("Error: later"),
                     frames.last().payload.constData());
            trace += more;
        }
        QVERIFY2(trace.contains("Uncaught exception") && trace.contains("Error: later"),
                 trace.constData());
        frames = session.cell("[kept, a]");
        QCOMPARE(payloadsOf(frames, Type::Stdout), QByteArray("[ 'yes', 1 ]\n"));
        QVERIFY2(frames.last().payload.startsWith("exit=0 "), frames.last().payload.constData());
    }

    void jsInterruptStopsABusyLoopOrAnAwaitAndKeepsTheState()
    {
        SessionLauncher session(NodeInterpreterDriver::command());
        session.framesUntil(Type::Ready);
        session.cell("let y = 5; let spins = 0;");
        const QList<QByteArray> stuck{
            "spins = 1;\nconsole.log('looping');\nwhile (true) spins++;\n",
            "console.log('waiting');\nawait new Promise(() => {});\n",
        };
        for (const QByteArray& code : stuck) {
            session.sendCell(code);
            QVERIFY(payloadsOf(session.framesUntil(Type::Stdout), Type::Stdout).endsWith("ing\n"));
            // As a timeout would: not in the very microseconds the cell's synchronous code ends,
            // when node's own SIGINT watch is being taken down.
            QTest::qWait(200);
            session.interrupt();
            const auto frames = session.framesUntil(Type::Exit, 10'000);
            QVERIFY(!frames.isEmpty() && frames.last().type == Type::Exit);
            QVERIFY2(frames.last().payload.startsWith("exit=130 ") &&
                         frames.last().payload.contains(" session=1"),
                     frames.last().payload.constData());
            QVERIFY(payloadsOf(frames, Type::Stderr).contains("Interrupted (SIGINT)"));
            QCOMPARE(payloadsOf(session.cell("[y, spins > 0]"), Type::Stdout),
                     QByteArray("[ 5, true ]\n"));
        }
        // A SIGINT between cells does nothing.
        session.cell("setTimeout(() => process.kill(process.pid, 'SIGINT'), 10);");
        QTest::qWait(200);
        QCOMPARE(payloadsOf(session.cell("y"), Type::Stdout), QByteArray("5\n"));
    }

    // --egress-carrier: the container's end of a remote engine's way to the egress proxy. The
    // test plays the server on the carrier's stdin and stdout, and the relay as a client of its
    // abstract socket.
    void carrierSaysHelloFirst()
    {
        CarrierProcess carrier;
        QVERIFY(carrier.saidHello());
        // It listens by then.
        Client client(connectAbstract(carrier.name()));
        QVERIFY(client.isConnected());
        QVERIFY(isFrame(carrier.next(), CSM_CARRIER_OPEN, 1));
    }

    void carrierCarriesAConnectionBothWays()
    {
        CarrierProcess carrier;
        QVERIFY(carrier.saidHello());
        Client client;
        QCOMPARE(carrier.connectClient(client), 1u);

        QVERIFY(client.send("from the program"));
        QCOMPARE(carrier.dataOf(1, 16), QByteArray("from the program"));

        carrier.send(carrierFrame(CSM_CARRIER_DATA, 1, "from the proxy"));
        QCOMPARE(client.receive(14), QByteArray("from the proxy"));
        QCOMPARE(carrier.acksOf(1, 14), 14u); // acknowledged once written, not more

        // The server's end half-closes: the client reads the end and can still send.
        carrier.send(carrierFrame(CSM_CARRIER_END, 1));
        QVERIFY(client.endsWithin());
        QVERIFY(client.send("more"));
        QCOMPARE(carrier.dataOf(1, 4), QByteArray("more"));
        QVERIFY(::shutdown(client.fd(), SHUT_WR) == 0);
        QVERIFY(isFrame(carrier.next(), CSM_CARRIER_END, 1));

        // Done on both sides; the next connection gets a new id.
        Client second;
        QCOMPARE(carrier.connectClient(second), 2u);
        QVERIFY(!client.send("x")); // the carrier closed its end of the first
        QVERIFY(carrier.framesWithin(200).isEmpty());
        QCOMPARE(carrier.process().state(), QProcess::Running);
    }

    void carrierSendsNoMoreThanTheWindowUnacknowledged()
    {
        CarrierProcess carrier;
        QVERIFY(carrier.saidHello());
        Client client;
        const quint32 id = carrier.connectClient(client);
        QCOMPARE(id, 1u);

        // The program has 3 MiB to send; a thread of its own blocks on a full socket.
        const qsizetype total = 3 * 1024 * 1024;
        QByteArray sent(total, Qt::Uninitialized);
        for (qsizetype i = 0; i < total; ++i)
            sent[i] = char(i % 251);
        std::thread writer([&] { client.send(sent); });
        const auto joinWriter = qScopeGuard([&] {
            if (writer.joinable()) {
                ::shutdown(client.fd(), SHUT_RDWR); // unblocks it, had the test failed early
                writer.join();
            }
        });

        QByteArray received = carrier.dataOf(id, CSM_CARRIER_WINDOW);
        QCOMPARE(received.size(), qsizetype(CSM_CARRIER_WINDOW));
        QVERIFY(carrier.framesWithin(300).isEmpty()); // stalled at the window

        carrier.send(carrierAck(id, 512 * 1024));
        received += carrier.dataOf(id, 512 * 1024);
        QCOMPARE(received.size(), qsizetype(CSM_CARRIER_WINDOW + 512 * 1024));
        QVERIFY(carrier.framesWithin(300).isEmpty());

        carrier.send(carrierAck(id, CSM_CARRIER_WINDOW));
        received += carrier.dataOf(id, CSM_CARRIER_WINDOW);
        carrier.send(carrierAck(id, CSM_CARRIER_WINDOW));
        received += carrier.dataOf(id, total - received.size());
        QCOMPARE(received.size(), total);
        QVERIFY(received == sent);

        writer.join();
        QVERIFY(::shutdown(client.fd(), SHUT_WR) == 0);
        QVERIFY(isFrame(carrier.next(), CSM_CARRIER_END, id));
    }

    void carrierClosesAConnectionThatResets()
    {
        CarrierProcess carrier;
        QVERIFY(carrier.saidHello());
        Client client;
        QCOMPARE(carrier.connectClient(client), 1u);
        carrier.send(carrierFrame(CSM_CARRIER_DATA, 1, "never read"));
        QCOMPARE(carrier.acksOf(1, 10), 10u);
        client.close(); // with unread bytes: the carrier's end is reset
        QVERIFY(isFrame(carrier.next(), CSM_CARRIER_CLOSE, 1));
    }

    void carrierIgnoresFramesForAConnectionAlreadyGone()
    {
        CarrierProcess carrier;
        QVERIFY(carrier.saidHello());
        Client client;
        QCOMPARE(carrier.connectClient(client), 1u);
        carrier.send(carrierFrame(CSM_CARRIER_CLOSE, 1));
        QVERIFY(client.endsWithin());
        // The server's frames that crossed the close are no breach.
        carrier.send(carrierFrame(CSM_CARRIER_DATA, 1, "late") + carrierAck(1, 4) +
                     carrierFrame(CSM_CARRIER_END, 1));
        QVERIFY(carrier.framesWithin(300).isEmpty());
        QCOMPARE(carrier.process().state(), QProcess::Running);
        Client second;
        QCOMPARE(carrier.connectClient(second), 2u);
    }

    void carrierTakesNoMoreThanItsCapOfConnections()
    {
        CarrierProcess carrier;
        QVERIFY(carrier.saidHello());
        std::vector<std::unique_ptr<Client>> clients;
        for (quint32 id = 1; id <= CSM_CARRIER_MAX_CONNECTIONS; ++id) {
            clients.push_back(std::make_unique<Client>());
            QCOMPARE(carrier.connectClient(*clients.back()), id);
        }
        // One more is closed at once, and the server hears nothing of it.
        Client over(connectAbstract(carrier.name()));
        QVERIFY(over.isConnected());
        QVERIFY(over.endsWithin());
        QVERIFY(carrier.framesWithin(200).isEmpty());
        // A connection ended on one side only still counts; ended on both, it is gone.
        clients.front()->close();
        QVERIFY(isFrame(carrier.next(), CSM_CARRIER_END, 1));
        Client stillOver(connectAbstract(carrier.name()));
        QVERIFY(stillOver.endsWithin());
        // (The ack of connection 2's data, after the end, says the carrier has taken the end.)
        carrier.send(carrierFrame(CSM_CARRIER_END, 1) + carrierFrame(CSM_CARRIER_DATA, 2, "x"));
        QCOMPARE(carrier.acksOf(2, 1), 1u);
        Client next;
        QCOMPARE(carrier.connectClient(next), quint32(CSM_CARRIER_MAX_CONNECTIONS + 1));
    }

    void carrierEndsWhenTheServerGoes()
    {
        CarrierProcess carrier;
        QVERIFY(carrier.saidHello());
        Client client;
        QCOMPARE(carrier.connectClient(client), 1u);
        carrier.process().closeWriteChannel();
        QVERIFY(carrier.process().waitForFinished(5'000));
        QCOMPARE(carrier.process().exitStatus(), QProcess::NormalExit);
        QCOMPARE(carrier.process().exitCode(), 0);
    }

    void carrierStopsAtABreach_data()
    {
        QTest::addColumn<QByteArray>("frame");
        const QByteArray big(CSM_CARRIER_MAX_DATA + 1, 'x');
        QTest::newRow("data for an id never given") << carrierFrame(CSM_CARRIER_DATA, 77, "x");
        QTest::newRow("data for id 0") << carrierFrame(CSM_CARRIER_DATA, 0, "x");
        QTest::newRow("data over the maximum") << carrierFrame(CSM_CARRIER_DATA, 1, big);
        QTest::newRow("data of no bytes") << carrierFrame(CSM_CARRIER_DATA, 1);
        QTest::newRow("ack of 3 bytes") << carrierFrame(CSM_CARRIER_ACK, 1, "abc");
        QTest::newRow("ack beyond the window") << carrierAck(1, 1);
        QTest::newRow("end with a payload") << carrierFrame(CSM_CARRIER_END, 1, "x");
        QTest::newRow("hello from the server") << carrierFrame(CSM_CARRIER_HELLO, 0);
        QTest::newRow("open from the server") << carrierFrame(CSM_CARRIER_OPEN, 2);
        QTest::newRow("unknown type") << carrierFrame('Z', 1);
        QTest::newRow("data after the end")
            << carrierFrame(CSM_CARRIER_END, 1) + carrierFrame(CSM_CARRIER_DATA, 1, "x");
        QTest::newRow("data beyond the window") << [] {
            // The client reads nothing: past what its socket takes (a few hundred KiB), the
            // carrier holds what the server sends, up to the window. 4 MiB is well beyond both.
            QByteArray frames;
            for (int i = 0; i < 4 * CSM_CARRIER_WINDOW / CSM_CARRIER_MAX_DATA; ++i)
                frames += carrierFrame(CSM_CARRIER_DATA, 1, QByteArray(CSM_CARRIER_MAX_DATA, 'w'));
            return frames;
        }();
    }

    void carrierStopsAtABreach()
    {
        QFETCH(QByteArray, frame);
        CarrierProcess carrier;
        QVERIFY(carrier.saidHello());
        Client client;
        QCOMPARE(carrier.connectClient(client), 1u);
        carrier.send(frame);
        QVERIFY(carrier.process().waitForFinished(10'000));
        QCOMPARE(carrier.process().exitStatus(), QProcess::NormalExit);
        QCOMPARE(carrier.process().exitCode(), 2);
        QVERIFY(carrier.process().readAllStandardError().contains("broke the protocol"));
    }

    void carrierThatCannotListenSaysWhy()
    {
        CarrierProcess first;
        QVERIFY(first.saidHello());
        CarrierProcess second(first.name()); // the name is taken
        QVERIFY(second.process().waitForFinished(5'000));
        QCOMPARE(second.process().exitCode(), 1);
        QVERIFY(second.process().readAllStandardError().contains("cannot listen"));
        QVERIFY(second.process().readAllStandardOutput().isEmpty()); // no hello
    }

    // The relay's SOCKET is the carrier's abstract socket, and the carrier comes up after the
    // program's connection: the relay waits for it instead of answering 502.
    void relayReachesACarrierThatComesUpLater()
    {
        if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty())
            QSKIP("no python3 on this machine");
        const quint16 port = freeLoopbackPort();
        QVERIFY(port != 0);
        const QByteArray name = uniqueAbstractName();
        QProcess launcher;
        launcher.start(QStringLiteral(CSM_LAUNCHER_BINARY),
                       {QStringLiteral("--egress-relay"),
                        QString::number(port) + QStringLiteral(":@") + QString::fromUtf8(name),
                        QStringLiteral("--"), QStringLiteral("/bin/sh")});
        QVERIFY(launcher.waitForStarted());
        const auto stopLauncher = qScopeGuard([&] {
            launcher.kill();
            launcher.waitForFinished(5'000);
        });
        launcher.write(LauncherRequest::encode(
            "python3 -c '\nimport socket\nprint(\"connecting\", flush=True)\n"
            "s = socket.create_connection((\"127.0.0.1\", " +
                QByteArray::number(port) +
                "))\ns.sendall(b\"ping\")\ns.shutdown(socket.SHUT_WR)\nanswer = b\"\"\n"
                "while True:\n    chunk = s.recv(65536)\n    if not chunk:\n        break\n"
                "    answer += chunk\nprint(answer.decode(), flush=True)\n'\n",
            {}));
        launcher.closeWriteChannel();
        LauncherStreamDecoder decoder;
        QByteArray programOutput;
        QList<Type> types;
        const auto readUntil = [&](const std::function<bool()>& done, int ms) {
            QElapsedTimer clock;
            clock.start();
            while (!done() && clock.elapsed() < ms) {
                launcher.waitForReadyRead(50);
                decoder.append(launcher.readAllStandardOutput());
                while (const auto frame = decoder.next()) {
                    types.append(frame->type);
                    if (frame->type == Type::Stdout)
                        programOutput += frame->payload;
                }
            }
        };
        readUntil([&] { return programOutput.contains("connecting\n"); }, 10'000);
        QCOMPARE(programOutput, QByteArray("connecting\n"));
        QTest::qWait(300); // the program is connecting, and no carrier listens yet

        CarrierProcess carrier(name);
        QVERIFY(carrier.saidHello());
        QVERIFY(isFrame(carrier.next(), CSM_CARRIER_OPEN, 1));
        QCOMPARE(carrier.dataOf(1, 4), QByteArray("ping"));
        QVERIFY(isFrame(carrier.next(), CSM_CARRIER_END, 1));
        carrier.send(carrierFrame(CSM_CARRIER_DATA, 1, "pong") + carrierFrame(CSM_CARRIER_END, 1));
        QCOMPARE(carrier.acksOf(1, 4), 4u);

        readUntil([&] { return types.contains(Type::Exit); }, 10'000);
        QCOMPARE(programOutput, QByteArray("connecting\npong\n"));
        QVERIFY(types.contains(Type::Exit));
        QVERIFY(launcher.waitForFinished(5'000));
        QCOMPARE(launcher.exitCode(), 0);
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("no --") << QStringList{QStringLiteral("/bin/sh")};
        QTest::newRow("ready fd of a standard stream") << QStringList{
            QStringLiteral("--listen"), QStringLiteral("/tmp/x"), QStringLiteral("--ready-fd"),
            QStringLiteral("2"),        QStringLiteral("--"),     QStringLiteral("/bin/sh")};
        QTest::newRow("ready fd without --listen")
            << QStringList{QStringLiteral("--ready-fd"), QStringLiteral("3"), QStringLiteral("--"),
                           QStringLiteral("/bin/sh")};
        QTest::newRow("session without a ready fd") << QStringList{
            QStringLiteral("--session"), QStringLiteral("--"), QStringLiteral("/bin/sh")};
        QTest::newRow("carrier without a socket")
            << QStringList{QStringLiteral("--egress-carrier")};
        QTest::newRow("carrier with a program")
            << QStringList{QStringLiteral("--egress-carrier"), QStringLiteral("@x"),
                           QStringLiteral("--"), QStringLiteral("/bin/sh")};
    }

    void usageErrors()
    {
        QFETCH(QStringList, arguments);
        QProcess process;
        process.start(QStringLiteral(CSM_LAUNCHER_BINARY), arguments);
        process.closeWriteChannel();
        QVERIFY(process.waitForFinished(10'000));
        QCOMPARE(process.exitCode(), 2);
    }
};

QTEST_GUILESS_MAIN(tst_Launcher)
#include "tst_Launcher.moc"
