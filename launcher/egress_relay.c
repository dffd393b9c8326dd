#define _GNU_SOURCE
#include "egress_relay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum
{
    /* Connections carried at once; the proxy's own cap (64 by default) is lower, so this only
     * bounds the relay's descriptors and pipes whatever the program does. */
    kMaxPairs = 256,
    /* Bytes in flight each way per connection: large moves are what make a download through the
     * relay approach the bridge (fewer wake-ups on both sides). Large pipes count against the
     * user's pipe allowance (16384 pages by default, for the sandbox user shared by every
     * container of the machine), so only the first few connections get them; the others keep
     * the default size (64 KiB). */
    kLargePipeBytes = 1024 * 1024,
    kMostLargePipes = 8,
    /* An abstract SOCKET is the egress carrier's, which the server starts through the engine
     * (exec) only once the container runs: the program's first connection can come before it
     * listens. How long to keep trying, and how often. */
    kCarrierWaitMs = 30 * 1000,
    kCarrierRetryMs = 20,
};

/* One connection of the program: side 0 is the program's TCP socket, side 1 the proxy's Unix
 * socket. Bytes from side d wait in pipe[d] (moved with splice, never copied through this
 * process) until side 1-d takes them; length[d] counts them. */
struct pair
{
    int fd[2];
    int pipe[2][2];
    size_t capacity[2];
    size_t length[2];
    int large[2]; /* pipe[d] is one of the kMostLargePipes */
    /* pipe[d] took no more: full by the kernel's count (a slot per chunk the socket had, not
     * bytes), so side d is not watched until some of it has gone out. */
    int full[2];
    int ended[2];     /* side d said end of stream */
    int heard[2];     /* side d sent at least one byte */
    int shut_down[2]; /* ...and side 1-d was told so, once its bytes were through */
};

static struct pair* g_pairs[kMaxPairs];
static int g_large_pipes;
/* accept4 ran out of descriptors: the listener is not watched until a pair closes (it would stay
 * readable and spin the loop). */
static int g_accept_paused;

static void set_nonblocking(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void close_pair(int index)
{
    struct pair* pair = g_pairs[index];
    g_accept_paused = 0;
    for (int d = 0; d < 2; ++d) {
        g_large_pipes -= pair->large[d];
        if (pair->fd[d] >= 0)
            close(pair->fd[d]);
        for (int end = 0; end < 2; ++end) {
            if (pair->pipe[d][end] >= 0)
                close(pair->pipe[d][end]);
        }
    }
    free(pair);
    g_pairs[index] = NULL;
}

/* A pair with no descriptors yet, so that close_pair() can undo any step of its making. */
static struct pair* new_pair(void)
{
    struct pair* pair = calloc(1, sizeof *pair);
    if (!pair)
        return NULL;
    for (int d = 0; d < 2; ++d) {
        pair->fd[d] = -1;
        pair->pipe[d][0] = pair->pipe[d][1] = -1;
    }
    return pair;
}

static int open_pipes(struct pair* pair)
{
    for (int d = 0; d < 2; ++d) {
        if (pipe2(pair->pipe[d], O_CLOEXEC | O_NONBLOCK) != 0)
            return 0;
        /* Past the user's pipe allowance the kernel refuses; the default size still works. */
        if (g_large_pipes < kMostLargePipes &&
            fcntl(pair->pipe[d][1], F_SETPIPE_SZ, kLargePipeBytes) > 0) {
            pair->large[d] = 1;
            ++g_large_pipes;
        }
        pair->capacity[d] = (size_t)fcntl(pair->pipe[d][1], F_GETPIPE_SZ);
    }
    return 1;
}

/* The program learns why its connection goes nowhere instead of seeing it reset. */
static void answer_unreachable(int program)
{
    static const char answer[] = "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
                                 "Connection: close\r\nContent-Length: 51\r\n\r\n"
                                 "Code Sandbox egress: the proxy is not reachable.\r\n";
    if (send(program, answer, sizeof answer - 1, MSG_NOSIGNAL) < 0) {
        /* the program is gone already */
    }
}

static long long monotonic_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* A new connection to SOCKET (the proxy's, or the carrier's), or -1. Blocking: the other end
 * accepts at once, and a full backlog is worth waiting for. An abstract SOCKET that nobody listens
 * on yet (refused) is tried again, with a fresh socket each time, for up to kCarrierWaitMs: the
 * carrier comes up a little after the container (the server starts it through the engine), and
 * the program may connect at once. The relay waits meanwhile; its other connections, if any, go
 * to the same carrier anyway. A path SOCKET is bind-mounted from the host before the container
 * starts: refused there means the proxy is gone, and the program learns it at once. */
static int connect_upstream(const char* socket_path)
{
    struct sockaddr_un address;
    const socklen_t length = egress_socket_address(socket_path, &address);
    const int abstract = socket_path[0] == '@';
    const long long give_up = monotonic_ms() + kCarrierWaitMs;
    for (;;) {
        const int upstream = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (upstream < 0)
            return -1;
        if (connect(upstream, (struct sockaddr*)&address, length) == 0)
            return upstream;
        const int error = errno;
        close(upstream);
        if (!abstract || (error != ECONNREFUSED && error != ENOENT) || monotonic_ms() >= give_up)
            return -1;
        const struct timespec pause = {0, kCarrierRetryMs * 1000000L};
        nanosleep(&pause, NULL);
    }
}

static void accept_one(int listener, const char* socket_path)
{
    const int program = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    if (program < 0) {
        if (errno == EMFILE || errno == ENFILE)
            g_accept_paused = 1;
        return;
    }
    int slot = 0;
    while (slot < kMaxPairs && g_pairs[slot])
        ++slot;
    struct pair* pair = slot < kMaxPairs ? new_pair() : NULL;
    if (!pair) {
        answer_unreachable(program);
        close(program);
        return;
    }
    g_pairs[slot] = pair;
    pair->fd[0] = program;
    pair->fd[1] = connect_upstream(socket_path);
    if (pair->fd[1] < 0 || !open_pipes(pair)) {
        answer_unreachable(program);
        close_pair(slot);
        return;
    }
    set_nonblocking(pair->fd[0]);
    set_nonblocking(pair->fd[1]);
}

/* Moves what it can in direction d (side d to side 1-d); 0 when the pair is done or broken. What
 * was just read is passed on at once (a full socket answers EAGAIN): waiting for poll to say
 * writable would cost each chunk a wake-up. */
static int pump(struct pair* pair, int d, short readable)
{
    const unsigned flags = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;
    if (pair->length[d] < pair->capacity[d] && !pair->ended[d] && !pair->full[d] && readable) {
        const ssize_t got = splice(pair->fd[d], NULL, pair->pipe[d][1], NULL,
                                   pair->capacity[d] - pair->length[d], flags);
        if (got > 0) {
            pair->length[d] += (size_t)got;
            pair->heard[d] = 1;
        } else if (got == 0) {
            pair->ended[d] = 1;
            /* The proxy always answers, even a refusal: an upstream that ends without a byte
             * never reached it (the carrier could not connect, or had no room), and the program
             * learns so as it does when the relay itself cannot connect. */
            if (d == 1 && !pair->heard[1])
                answer_unreachable(pair->fd[0]);
        } else if (errno == EAGAIN && pair->length[d] > 0)
            pair->full[d] = 1; /* readable, yet nothing went in: the pipe is full */
        else if (errno != EAGAIN && errno != EINTR)
            return 0;
    }
    if (pair->length[d] > 0) {
        const ssize_t sent =
            splice(pair->pipe[d][0], NULL, pair->fd[1 - d], NULL, pair->length[d], flags);
        if (sent > 0) {
            pair->length[d] -= (size_t)sent;
            pair->full[d] = 0;
        } else if (sent < 0 && errno != EAGAIN && errno != EINTR)
            return 0;
    }
    if (pair->ended[d] && pair->length[d] == 0 && !pair->shut_down[d]) {
        shutdown(pair->fd[1 - d], SHUT_WR);
        pair->shut_down[d] = 1;
    }
    return !(pair->shut_down[0] && pair->shut_down[1]);
}

static _Noreturn void relay(int listener, const char* socket_path)
{
    struct pollfd fds[1 + 2 * kMaxPairs];
    for (;;) {
        fds[0] = (struct pollfd){.fd = g_accept_paused ? -1 : listener, .events = POLLIN};
        for (int i = 0; i < kMaxPairs; ++i) {
            struct pair* pair = g_pairs[i];
            for (int side = 0; side < 2; ++side) {
                short events = 0;
                if (pair && pair->length[side] < pair->capacity[side] && !pair->ended[side] &&
                    !pair->full[side])
                    events |= POLLIN;
                if (pair && pair->length[1 - side] > 0)
                    events |= POLLOUT;
                /* A side we want nothing from stays out of the set: its hang-up would otherwise
                 * wake us again and again while the other side is slow. */
                fds[1 + 2 * i + side] =
                    (struct pollfd){.fd = events ? pair->fd[side] : -1, .events = events};
            }
        }
        if (poll(fds, 1 + 2 * kMaxPairs, -1) < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        for (int i = 0; i < kMaxPairs; ++i) {
            struct pair* pair = g_pairs[i];
            if (!pair)
                continue;
            const short side0 = fds[1 + 2 * i].revents;
            const short side1 = fds[2 + 2 * i].revents;
            const short hangup = POLLHUP | POLLERR;
            const int alive = pump(pair, 0, side0 & (POLLIN | hangup)) &&
                              pump(pair, 1, side1 & (POLLIN | hangup));
            if (!alive)
                close_pair(i);
        }
        if (fds[0].revents & POLLIN)
            accept_one(listener, socket_path);
    }
}

socklen_t egress_socket_address(const char* socket_name, struct sockaddr_un* address)
{
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    if (socket_name[0] == '@') {
        /* Abstract: a leading NUL, then the name, whose length the address length carries (no
         * terminating NUL: the kernel would take it as part of the name). */
        const size_t length = strlen(socket_name + 1);
        if (length == 0 || length > sizeof address->sun_path - 1)
            return 0;
        memcpy(address->sun_path + 1, socket_name + 1, length);
        return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length);
    }
    if (socket_name[0] == '\0' || strlen(socket_name) >= sizeof address->sun_path)
        return 0;
    strcpy(address->sun_path, socket_name);
    return (socklen_t)sizeof *address;
}

pid_t egress_relay_start(const char* spec, void (*fail)(const char* what))
{
    char* end = NULL;
    const long port = strtol(spec, &end, 10);
    struct sockaddr_un unused;
    if (port <= 0 || port > 65535 || *end != ':' || egress_socket_address(end + 1, &unused) == 0)
        fail("reading --egress-relay (PORT:SOCKET)");
    const char* socket_path = end + 1;

    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    const int yes = 1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (listener < 0 || setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) != 0 ||
        bind(listener, (struct sockaddr*)&address, sizeof address) != 0 ||
        listen(listener, 128) != 0)
        fail("listening on the sandbox's loopback for its proxy (is the loopback up?)");

    const pid_t relay_pid = fork();
    if (relay_pid < 0)
        fail("starting the egress relay");
    if (relay_pid == 0) {
        /* Outside a container (a test) nothing else would end it. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        signal(SIGCHLD, SIG_DFL);
        /* It holds none of the launcher's streams: the host's frames end when the launcher's do. */
        const int null = open("/dev/null", O_RDWR);
        for (int fd = 0; fd < 3; ++fd)
            dup2(null, fd);
        for (int fd = 3; fd < 1024; ++fd) {
            if (fd != listener)
                close(fd);
        }
        relay(listener, socket_path);
    }
    close(listener);
    return relay_pid;
}

void egress_relay_stop(pid_t relay_pid)
{
    if (relay_pid <= 0)
        return;
    kill(relay_pid, SIGKILL);
    while (waitpid(relay_pid, NULL, 0) < 0 && errno == EINTR) {
    }
}
