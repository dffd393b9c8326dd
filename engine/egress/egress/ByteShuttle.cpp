#include "egress/ByteShuttle.h"

#include "egress/ByteBudget.h"

#include <QThread>

#include <atomic>
#include <initializer_list>
#include <optional>

#ifdef Q_OS_LINUX
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

namespace csm {

#ifdef Q_OS_LINUX

namespace {

// Bytes in flight each way: large moves mean few wake-ups per megabyte. Large pipes count against
// the user's pipe allowance (16384 pages by default, shared with every program of the user: past
// it, everyone's new pipes are small), so only a few connections of the process get them; the
// others keep the default size (64 KiB).
constexpr int kLargePipeBytes = 1024 * 1024;
constexpr int kMostLargePipes = 8; // 8 MiB, an eighth of the default allowance
std::atomic<int> g_largePipes{0};

int duplicate(qintptr fd)
{
    const int copy = fd < 0 ? -1 : ::fcntl(int(fd), F_DUPFD_CLOEXEC, 0);
    if (copy >= 0)
        ::fcntl(copy, F_SETFL, ::fcntl(copy, F_GETFL) | O_NONBLOCK);
    return copy;
}

void closeAll(std::initializer_list<int> fds)
{
    for (const int fd : fds) {
        if (fd >= 0)
            ::close(fd);
    }
}

// One direction: a pipe between the side it reads and the side it writes.
struct Lane
{
    int pipe[2] = {-1, -1};
    qint64 capacity = 0;
    qint64 held = 0;    // in the pipe
    qint64 firstAt = 0; // how much of the first bytes went
    bool large = false; // one of the process's kMostLargePipes
    // The pipe took no more: it is full by the kernel's count (a slot per chunk the socket had,
    // not bytes), so the side it reads is not watched until some of it has gone out.
    bool full = false;
    bool ended = false;    // the side it reads said end of stream
    bool shutDown = false; // ...and the side it writes was told, once all had gone through
};

} // namespace

bool ByteShuttle::available()
{
    return true;
}

std::unique_ptr<ByteShuttle> ByteShuttle::adopt(qintptr program, qintptr host, QByteArray toProgram,
                                                QByteArray toHost, ByteBudget& budget)
{
    std::unique_ptr<ByteShuttle> shuttle(new ByteShuttle(budget));
    shuttle->m_fd[0] = duplicate(program);
    shuttle->m_fd[1] = duplicate(host);
    if (shuttle->m_fd[0] < 0 || shuttle->m_fd[1] < 0 ||
        ::pipe2(shuttle->m_wake, O_CLOEXEC | O_NONBLOCK) != 0)
        return nullptr;
    shuttle->m_first[0] = std::move(toHost);
    shuttle->m_first[1] = std::move(toProgram);
    return shuttle;
}

ByteShuttle::~ByteShuttle()
{
    stop();
    closeAll({m_fd[0], m_fd[1], m_wake[0], m_wake[1]});
}

void ByteShuttle::start()
{
    m_thread = QThread::create([this] { run(); });
    m_thread->setObjectName(QStringLiteral("egress-shuttle"));
    // Its frames are small: no buffers on the stack.
    m_thread->setStackSize(256 * 1024);
    connect(m_thread, &QThread::finished, this, &ByteShuttle::ended);
    m_thread->start();
}

ByteShuttle::Result ByteShuttle::stop()
{
    if (m_thread) {
        const char byte = 0;
        if (::write(m_wake[1], &byte, 1) < 0) {
            // the pipe is full: the thread has been told already
        }
        m_thread->wait();
        delete m_thread;
        m_thread = nullptr;
    }
    return m_result;
}

void ByteShuttle::run()
{
    Lane lanes[2];
    const auto finish = [&](End end) {
        m_result.end = end;
        for (const Lane& lane : lanes) {
            if (lane.large)
                --g_largePipes;
        }
        // The descriptors close here: what the kernel holds for a side still goes out to it.
        closeAll({m_fd[0], m_fd[1], lanes[0].pipe[0], lanes[0].pipe[1], lanes[1].pipe[0],
                  lanes[1].pipe[1]});
        m_fd[0] = m_fd[1] = -1;
    };
    for (Lane& lane : lanes) {
        if (::pipe2(lane.pipe, O_CLOEXEC | O_NONBLOCK) != 0)
            return finish(End::Cut);
        if (++g_largePipes <= kMostLargePipes) {
            // Past the user's pipe allowance the kernel refuses; the default size still works.
            lane.large = ::fcntl(lane.pipe[1], F_SETPIPE_SZ, kLargePipeBytes) > 0;
        }
        if (!lane.large)
            --g_largePipes;
        lane.capacity = ::fcntl(lane.pipe[1], F_GETPIPE_SZ);
    }
    const unsigned flags = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;
    // Moves what it can in direction d; an End when the connection is over.
    const auto move = [&](int d) -> std::optional<End> {
        Lane& lane = lanes[d];
        const int from = m_fd[d];
        const int to = m_fd[1 - d];
        // An error on a side is that side's end.
        const End fromEnded = d == 0 ? End::ProgramClosed : End::HostClosed;
        const End toEnded = d == 0 ? End::HostClosed : End::ProgramClosed;
        if (!lane.ended && !lane.full && lane.held < lane.capacity) {
            const ssize_t got = ::splice(from, nullptr, lane.pipe[1], nullptr,
                                         size_t(lane.capacity - lane.held), flags);
            if (got > 0)
                lane.held += got;
            else if (got == 0)
                lane.ended = true;
            else if (errno == EAGAIN && lane.held > 0)
                lane.full = true; // or the side had nothing: the next move out clears it
            else if (errno != EAGAIN && errno != EINTR)
                return fromEnded;
        }
        QByteArray& first = m_first[d];
        while (lane.firstAt < first.size()) {
            const ssize_t sent = ::send(to, first.constData() + lane.firstAt,
                                        size_t(first.size() - lane.firstAt), MSG_NOSIGNAL);
            if (sent < 0)
                return errno == EAGAIN || errno == EINTR ? std::nullopt
                                                         : std::optional<End>(toEnded);
            lane.firstAt += sent;
            // The proxy's own answer to the program is not the host's traffic.
            if (d == 0) {
                m_result.bytesSent += sent;
                if (!m_budget.spend(sent))
                    return End::OverBudget;
            }
        }
        if (lane.held > 0) {
            const ssize_t sent =
                ::splice(lane.pipe[0], nullptr, to, nullptr, size_t(lane.held), flags);
            if (sent > 0) {
                lane.held -= sent;
                lane.full = false;
                (d == 0 ? m_result.bytesSent : m_result.bytesReceived) += sent;
                if (!m_budget.spend(sent))
                    return End::OverBudget;
            } else if (sent < 0 && errno != EAGAIN && errno != EINTR) {
                return toEnded;
            }
        }
        if (lane.ended && lane.held == 0 && !lane.shutDown) {
            lane.shutDown = true;
            // The host's end is the connection's; the program's is only a half-close (it has
            // said all it will), and the host's answer still comes.
            if (d == 1)
                return End::HostClosed;
            ::shutdown(to, SHUT_WR);
        }
        return std::nullopt;
    };
    for (;;) {
        for (int d = 0; d < 2; ++d) {
            if (const std::optional<End> end = move(d))
                return finish(*end);
        }
        pollfd fds[3] = {{m_wake[0], POLLIN, 0}, {m_fd[0], 0, 0}, {m_fd[1], 0, 0}};
        for (int d = 0; d < 2; ++d) {
            const Lane& lane = lanes[d];
            if (!lane.ended && !lane.full && lane.held < lane.capacity)
                fds[1 + d].events |= POLLIN;
            if (lane.held > 0 || lane.firstAt < m_first[d].size())
                fds[2 - d].events |= POLLOUT;
        }
        // A side wanted for nothing stays out: its hang-up would wake the loop again and again.
        for (pollfd& fd : fds) {
            if (fd.events == 0)
                fd.fd = -1;
        }
        if (::poll(fds, 3, -1) < 0 && errno != EINTR)
            return finish(End::Cut);
        if (fds[0].revents)
            return finish(End::Cut);
    }
}

#else

bool ByteShuttle::available()
{
    return false;
}

std::unique_ptr<ByteShuttle> ByteShuttle::adopt(qintptr, qintptr, QByteArray, QByteArray,
                                                ByteBudget&)
{
    return nullptr;
}

ByteShuttle::~ByteShuttle() = default;

void ByteShuttle::start() {}

ByteShuttle::Result ByteShuttle::stop()
{
    return m_result;
}

void ByteShuttle::run() {}

#endif

ByteShuttle::ByteShuttle(ByteBudget& budget)
    : m_budget(budget)
{}

} // namespace csm
