/*
 * csm-launch: the sandbox's PID 1. Mounted read-only into every container and run as its
 * entrypoint, it reads the program from stdin, runs the interpreter as its child, and reports on
 * its own stdout, in frames: the start, the child's stdout and stderr, then its exit status (or a
 * failure or a refusal instead). csm/launcher_protocol.h defines the frames, and is shared with
 * the server that decodes them.
 *
 * unenforced=N is a bit set of the limits asked for with --limits that this container's cgroup
 * does not show (1 memory, 2 processes, 4 CPU): the engine accepted them and ignored them, as
 * rootless Podman does on cgroup v1. With --unenforced refuse (the default) the program is not
 * run at all; with --unenforced allow it runs and the exit frame says what was missing.
 *
 * The program cannot forge a frame: its output only ever reaches the stream inside frames, it
 * cannot open this process's stdout (/proc/1/fd/1) because this process makes itself
 * non-dumpable, and as PID 1 it ignores every signal the program may send it. The status thus
 * reaches the server as soon as the program ends, without waiting for the engine's teardown.
 *
 * The host's request (csm/launcher_protocol.h) is the program and the files to place in the
 * working directory before it starts. With --listen PATH (a warm pool's container) it starts the
 * interpreter at once, so that the interpreter's own start-up is paid before any call, and waits
 * for one connection on the Unix socket PATH (in a folder the host bind-mounts) for the request;
 * the frames then go back over that connection; with --listen - (a remote engine's warm container,
 * which no host folder reaches) the same happens on the attached stdin and stdout. Otherwise the
 * request comes on stdin. Once
 * connected, it sends a ready frame when the interpreter is ready for its program: with
 * --ready-fd N the interpreter gets the write end of a pipe as its fd N (and CSM_READY_FD=N) and
 * writes a byte there, or closes it, once it has paid for its start-up (a Python interpreter
 * importing the usual modules); without it, at once. A request that arrives first is served as
 * it is: the interpreter stops its start-up work when its program arrives.
 *
 * With --out-dir DIR it creates DIR before the program runs and, once the program has ended and
 * every process it left behind is killed (so nothing can swap a file for a link while it reads),
 * sends back the regular files under DIR, within --out-files and --out-bytes. Links, FIFOs and
 * devices are reported as skipped and never opened.
 *
 * With --session the interpreter is a session driver that keeps its state between cells: the host
 * sends messages on stdin (with --listen, a warm pool's session, on its connection), 'C' and a
 * request for each cell, 'I' to interrupt the running one (SIGINT), and end of file to end the
 * session. The driver reads each cell's program
 * on its stdin (an 8-byte length, the cell's 8-byte tag, then the program) and reports on its
 * --ready-fd: 'r' once when ready, then 'e', the cell's tag and a 4-byte big-endian status after
 * each cell. The tag is random, new for each cell, and only an end that carries the running
 * cell's tag ends it: the program holds the report descriptor too (it runs in the driver's
 * process), and an end it writes, during its cell or between cells, ends nothing. Each cell gets
 * its own started,
 * output, file and exit frames; the exit frame says session=1 while the driver lives (and
 * memory=N, the bytes the container's cgroup charges then, when it can be read), and session=0 when
 * it died (the launcher then ends). The output folder is emptied after each cell's files are sent,
 * so that a cell returns only what it made.
 *
 * With --egress-relay PORT:SOCKET (egress proxy mode: the container has no network) it listens on
 * 127.0.0.1:PORT before the program starts and carries each connection to the server's proxy
 * through the Unix socket SOCKET (egress_relay.h); "@name" is an abstract socket, the egress
 * carrier's, which the relay waits for a little when it is not up yet.
 *
 * With --egress-carrier SOCKET, alone (a remote engine's egress proxy mode: the server runs it
 * through the engine's exec in a running container), it runs no program: it listens on SOCKET
 * ("@name", where the relay connects) and carries those connections to the server, multiplexed
 * over its own stdin and stdout (egress_carrier.h, csm/egress_carrier_protocol.h), until its
 * stdin ends. Non-dumpable too: the program runs as the same user and must not take over its
 * stream to the server.
 *
 * Static, with no dependency on the image: custom images keep working. Linux only.
 */
#define _GNU_SOURCE
#include "csm/launcher_protocol.h"
#include "egress_carrier.h"
#include "egress_relay.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum
{
    kChunk = 64 * 1024
};
_Static_assert((int)kChunk <= (int)CSM_FRAME_MAX_PAYLOAD, "an output chunk must fit in one frame");
/* After the program exits, how long its orphans may keep its output pipes open. */
enum
{
    kDrainAfterExitMs = 200
};

/* v1 reports "no memory limit" as a huge number (PAGE_COUNTER_MAX pages): anything above this. */
static const long long kNoLimitAbove = 1LL << 60;

static int g_wake[2] = {-1, -1};
static const char* g_cgroup_root = "/sys/fs/cgroup";
/* Where frames go: stdout, or the host's connection in --listen mode. */
static int g_frames = STDOUT_FILENO;
/* --ready-fd: the read end of the pipe the interpreter says it is ready on; -1 without. */
static int g_ready = -1;
/* --session: cells share one interpreter, and a cell's input file may replace an earlier one. */
static int g_session = 0;
/* --egress-relay: the relay's pid, 0 without one. */
static pid_t g_relay = 0;

static void on_sigchld(int signal_number)
{
    (void)signal_number;
    const int saved = errno;
    const char byte = 0;
    if (write(g_wake[1], &byte, 1) < 0) {
        /* the pipe is full: a wake-up is already pending */
    }
    errno = saved;
}

static int write_all(int fd, const void* data, size_t size)
{
    const char* bytes = data;
    while (size > 0) {
        const ssize_t written = write(fd, bytes, size);
        if (written < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        bytes += written;
        size -= (size_t)written;
    }
    return 0;
}

static void frame(int type, const void* payload, size_t size)
{
    unsigned char header[CSM_FRAME_HEADER_SIZE];
    csm_frame_header_write(header, type, (uint32_t)size);
    if (write_all(g_frames, header, sizeof header) != 0 || write_all(g_frames, payload, size) != 0)
        _exit(CSM_LAUNCH_EXIT_FRAMES_UNWRITABLE);
}

static void frame_text(int type, const char* text)
{
    frame(type, text, strlen(text));
}

static _Noreturn void fail(const char* what)
{
    char message[512];
    snprintf(message, sizeof message, "%s: %s", what, strerror(errno));
    frame_text(CSM_FRAME_FAILURE, message);
    _exit(CSM_LAUNCH_EXIT_FAILURE);
}

/* This process's own cgroup in the hierarchy of `controller` ("" for cgroup v2's unified one),
 * from /proc/self/cgroup ("ID:CONTROLLERS:PATH"); "/" when it cannot be told. With a private
 * cgroup namespace (the engines' default) it is "/", and the cgroup root is the container's own;
 * with the host's namespace the root is the host's, and the container's files are below it. */
static void own_cgroup(const char* controller, char* path, size_t size)
{
    snprintf(path, size, "/");
    FILE* file = fopen("/proc/self/cgroup", "re");
    if (!file)
        return;
    char line[1024];
    while (fgets(line, sizeof line, file)) {
        char* controllers = strchr(line, ':');
        char* own = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!own)
            continue;
        *own++ = '\0';
        ++controllers;
        own[strcspn(own, "\n")] = '\0';
        if (strcmp(controllers, controller) == 0) {
            snprintf(path, size, "%s", own);
            break;
        }
    }
    fclose(file);
}

/* `relative` is a file under the cgroup root: "memory.max" (v2) or "memory/memory.limit_in_bytes"
 * (v1, the controller's folder first). This process's own cgroup is tried first, then the root. */
static FILE* open_cgroup_file(const char* relative)
{
    char controller[64] = "";
    const char* leaf = relative;
    const char* slash = strchr(relative, '/');
    if (slash && (size_t)(slash - relative) < sizeof controller) {
        memcpy(controller, relative, (size_t)(slash - relative));
        controller[slash - relative] = '\0';
        leaf = slash + 1;
    }
    char own[512];
    own_cgroup(controller, own, sizeof own);
    char path[1200];
    if (strcmp(own, "/") != 0) {
        snprintf(path, sizeof path, "%s/%s%s/%s", g_cgroup_root, controller, own, leaf);
        FILE* file = fopen(path, "re");
        if (file)
            return file;
    }
    snprintf(path, sizeof path, "%s/%s", g_cgroup_root, relative);
    return fopen(path, "re");
}

/* oom_kill counter of this container's memory cgroup (v2 memory.events, v1 memory.oom_control). */
static long oom_kills(void)
{
    static const char* const files[] = {"memory.events", "memory/memory.oom_control"};
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
        FILE* file = open_cgroup_file(files[i]);
        if (!file)
            continue;
        char key[64];
        long value = 0;
        while (fscanf(file, "%63s %ld", key, &value) == 2) {
            if (strcmp(key, "oom_kill") == 0) {
                fclose(file);
                return value;
            }
        }
        fclose(file);
    }
    return -1;
}

/* The numbers in the first of `files` (cgroup v2 name first, then v1) that can be read: up to
 * two, "max" read as -1. Returns how many were read; 0 when no file could be. */
static int read_cgroup_numbers(const char* const* files, size_t count, long long values[2])
{
    for (size_t i = 0; i < count; ++i) {
        FILE* file = open_cgroup_file(files[i]);
        if (!file)
            continue;
        char words[2][64] = {{0}, {0}};
        const int read = fscanf(file, "%63s %63s", words[0], words[1]);
        fclose(file);
        if (read <= 0)
            continue;
        for (int w = 0; w < read; ++w)
            values[w] = strcmp(words[w], "max") == 0 ? -1 : atoll(words[w]);
        return read;
    }
    return 0;
}

/* The memory this container's cgroup charges now (what the engine's stats show, page cache
 * included), or -1 when it cannot be read. */
static long long memory_in_use(void)
{
    static const char* const files[] = {"memory.current", "memory/memory.usage_in_bytes"};
    long long values[2] = {-1, -1};
    if (read_cgroup_numbers(files, sizeof files / sizeof *files, values) < 1)
        return -1;
    return values[0];
}

/* Whether the cgroup holds this container to `limit` or less: a limit it does not show, or that
 * cannot be read at all, is not enforced. */
static int is_bounded(const char* const* files, size_t count, long long limit)
{
    long long values[2] = {-1, -1};
    if (read_cgroup_numbers(files, count, values) < 1)
        return 0;
    return values[0] >= 0 && values[0] < kNoLimitAbove && values[0] <= limit;
}

static int is_cpu_bounded(long long millicpus)
{
    long long quota = -1, period = 0;
    long long values[2] = {-1, -1};
    static const char* const v2[] = {"cpu.max"};
    static const char* const v1_quota[] = {"cpu/cpu.cfs_quota_us", "cpu,cpuacct/cpu.cfs_quota_us"};
    static const char* const v1_period[] = {"cpu/cpu.cfs_period_us",
                                            "cpu,cpuacct/cpu.cfs_period_us"};
    if (read_cgroup_numbers(v2, 1, values) == 2) {
        quota = values[0];
        period = values[1];
    } else if (read_cgroup_numbers(v1_quota, 2, values) == 1) {
        quota = values[0];
        if (read_cgroup_numbers(v1_period, 2, values) == 1)
            period = values[0];
    }
    /* A hundredth of a CPU of rounding, at most. */
    return quota > 0 && period > 0 && quota * 1000 <= millicpus * period + period * 10;
}

/* The limits asked for ("memory=BYTES,pids=N,millicpus=N") that the cgroup does not enforce. */
static int unenforced_limits(const char* asked)
{
    static const char* const memory_files[] = {"memory.max", "memory/memory.limit_in_bytes"};
    static const char* const pids_files[] = {"pids.max", "pids/pids.max"};
    int missing = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", asked);
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char* equals = strchr(item, '=');
        if (!equals)
            continue;
        *equals = '\0';
        const long long value = atoll(equals + 1);
        if (value <= 0)
            continue;
        if (strcmp(item, "memory") == 0 && !is_bounded(memory_files, 2, value))
            missing |= CSM_LIMIT_MEMORY;
        else if (strcmp(item, "pids") == 0 && !is_bounded(pids_files, 2, value))
            missing |= CSM_LIMIT_PIDS;
        else if (strcmp(item, "millicpus") == 0 && !is_cpu_bounded(value))
            missing |= CSM_LIMIT_CPU;
    }
    return missing;
}

static int read_exactly(int fd, void* data, size_t size)
{
    char* bytes = data;
    while (size > 0) {
        const ssize_t count = read(fd, bytes, size);
        if (count < 0 && errno == EINTR)
            continue;
        if (count <= 0)
            return -1;
        bytes += count;
        size -= (size_t)count;
    }
    return 0;
}

static unsigned long long big_endian(const unsigned char* bytes, size_t size)
{
    unsigned long long value = 0;
    for (size_t i = 0; i < size; ++i)
        value = (value << 8) | bytes[i];
    return value;
}

/* Whether `path` is a relative path made of real names: not empty, not absolute, no "." or ".."
 * component, no empty component. The server checks the same; this is the last line. */
static int is_safe_relative_path(const char* path)
{
    if (path[0] == '\0' || path[0] == '/')
        return 0;
    for (const char* part = path; *part;) {
        const char* slash = strchr(part, '/');
        const size_t length = slash ? (size_t)(slash - part) : strlen(part);
        if (length == 0 || (length == 1 && part[0] == '.') ||
            (length == 2 && part[0] == '.' && part[1] == '.'))
            return 0;
        part += length;
        if (*part == '/')
            ++part;
        if (slash && *part == '\0')
            return 0;
    }
    return 1;
}

/* Creates the folders of `path` (relative to the working directory), not following links. */
static void make_parent_folders(char* path)
{
    for (char* slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            fail("creating an input file's folder");
        struct stat info;
        if (lstat(path, &info) != 0 || !S_ISDIR(info.st_mode)) {
            errno = ENOTDIR;
            fail("creating an input file's folder");
        }
        *slash = '/';
    }
}

/* Reads the request's files from `fd` and writes each under the working directory, streaming
 * its content: an input file is never held in memory whole. */
static void place_input_files(int fd)
{
    static char chunk[kChunk];
    for (;;) {
        unsigned char length_bytes[CSM_REQUEST_PATH_LENGTH_SIZE];
        if (read_exactly(fd, length_bytes, sizeof length_bytes) != 0)
            fail("reading the input files");
        const unsigned long long path_length = big_endian(length_bytes, sizeof length_bytes);
        if (path_length == 0)
            return;
        if (path_length > CSM_MAX_PATH) {
            errno = ENAMETOOLONG;
            fail("reading an input file's path");
        }
        char path[CSM_MAX_PATH + 1];
        unsigned char size_bytes[CSM_REQUEST_LENGTH_SIZE];
        if (read_exactly(fd, path, (size_t)path_length) != 0 ||
            read_exactly(fd, size_bytes, sizeof size_bytes) != 0)
            fail("reading an input file");
        path[path_length] = '\0';
        if (memchr(path, '\0', (size_t)path_length) || !is_safe_relative_path(path)) {
            errno = EINVAL;
            fail("an input file's path");
        }
        make_parent_folders(path);
        const int file =
            open(path, O_WRONLY | O_CREAT | (g_session ? O_TRUNC : O_EXCL) | O_NOFOLLOW | O_CLOEXEC,
                 0644);
        if (file < 0)
            fail("creating an input file");
        for (unsigned long long left = big_endian(size_bytes, sizeof size_bytes); left > 0;) {
            const size_t want = left < sizeof chunk ? (size_t)left : sizeof chunk;
            if (read_exactly(fd, chunk, want) != 0)
                fail("reading an input file");
            if (write_all(file, chunk, want) != 0)
                fail("writing an input file (is the working directory full?)");
            left -= want;
        }
        close(file);
    }
}

/* Reads a request (csm/launcher_protocol.h) from `fd`: places its files, returns its program. */
static char* read_request(int fd, size_t limit, size_t* size)
{
    unsigned char header[CSM_REQUEST_LENGTH_SIZE];
    if (read_exactly(fd, header, sizeof header) != 0)
        fail("reading the program's length");
    const unsigned long long length = big_endian(header, sizeof header);
    if (length > limit) {
        errno = EFBIG;
        fail("reading the program");
    }
    *size = (size_t)length;
    char* buffer = malloc(*size ? *size : 1);
    if (!buffer || read_exactly(fd, buffer, *size) != 0)
        fail("reading the program");
    place_input_files(fd);
    return buffer;
}

/* Sends the ready frame once the interpreter is ready (or has given up: the call that takes this
 * container learns why from its exit), unless the host's request comes first. */
static void announce_ready(int connection)
{
    if (g_ready >= 0) {
        struct pollfd fds[2] = {{.fd = connection, .events = POLLIN},
                                {.fd = g_ready, .events = POLLIN}};
        for (;;) {
            if (poll(fds, 2, -1) >= 0)
                break;
            if (errno != EINTR)
                fail("waiting for the interpreter");
        }
        /* The pipe stays open: an interpreter that writes later must not get EPIPE. */
        if (!(fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            return;
    }
    frame(CSM_FRAME_READY, "", 0);
}

/* --listen: waits for the host's one connection on the socket PATH; frames go back over it.
 * "-" (a remote engine's warm container, kept attached: no host folder reaches it) is the
 * attached stdin and stdout, which are there already: the up frame tells the host so. */
static int accept_host(const char* path)
{
    if (strcmp(path, "-") == 0) {
        frame(CSM_FRAME_UP, "", 0);
        return STDIN_FILENO;
    }
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address.sun_path) {
        errno = ENAMETOOLONG;
        fail("listening");
    }
    strcpy(address.sun_path, path);
    const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    unlink(path);
    if (listener < 0 || bind(listener, (struct sockaddr*)&address, sizeof address) != 0 ||
        listen(listener, 1) != 0)
        fail("listening");
    /* The host side may run as another user than the sandbox (rootless engines map ids). */
    chmod(path, 0666);
    int connection;
    do {
        connection = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    } while (connection < 0 && errno == EINTR);
    if (connection < 0)
        fail("accepting the host's connection");
    close(listener);
    unlink(path);
    g_frames = connection;
    return connection;
}

/* --listen: the host's connection, then its request (after the ready frame, unless it came
 * first). */
static char* accept_request(const char* path, size_t limit, size_t* size)
{
    const int connection = accept_host(path);
    announce_ready(connection);
    return read_request(connection, limit, size);
}

/* The output folder's files, sent back after the program: within a count and a total size. */
struct output_budget
{
    long long files_left;
    long long bytes_left;
};

enum
{
    kMaxOutputDepth = 16
};

static void frame_skipped(int reason, const char* path)
{
    const size_t length = strlen(path);
    char* payload = malloc(length + 1);
    if (!payload)
        return;
    payload[0] = (char)reason;
    memcpy(payload + 1, path, length);
    frame(CSM_FRAME_FILE_SKIPPED, payload, length + 1);
    free(payload);
}

/* Sends one regular file, opened through `folder` without following a link: its header, then
 * at most the size it had when it was opened (nothing can grow it now: every other process in
 * the container is dead). */
static void send_output_file(int folder, const char* name, const char* path,
                             struct output_budget* budget)
{
    const int file = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat info;
    if (file < 0 || fstat(file, &info) != 0) {
        if (file >= 0)
            close(file);
        frame_skipped(CSM_SKIP_UNREADABLE, path);
        return;
    }
    if (!S_ISREG(info.st_mode)) {
        close(file);
        frame_skipped(CSM_SKIP_NOT_REGULAR, path);
        return;
    }
    if (budget->files_left <= 0) {
        close(file);
        frame_skipped(CSM_SKIP_TOO_MANY, path);
        return;
    }
    if (info.st_size > budget->bytes_left) {
        close(file);
        frame_skipped(CSM_SKIP_TOO_LARGE, path);
        return;
    }
    --budget->files_left;
    budget->bytes_left -= info.st_size;
    const size_t path_length = strlen(path);
    char header[CSM_REQUEST_LENGTH_SIZE + CSM_MAX_PATH];
    unsigned long long size = (unsigned long long)info.st_size;
    for (int i = CSM_REQUEST_LENGTH_SIZE - 1; i >= 0; --i, size >>= 8)
        header[i] = (char)(size & 0xff);
    memcpy(header + CSM_REQUEST_LENGTH_SIZE, path, path_length);
    frame(CSM_FRAME_FILE, header, CSM_REQUEST_LENGTH_SIZE + path_length);
    static char chunk[kChunk];
    for (long long left = info.st_size; left > 0;) {
        const ssize_t got = read(file, chunk, left < kChunk ? (size_t)left : sizeof chunk);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break; /* shrunk: the server sees fewer bytes than announced */
        frame(CSM_FRAME_FILE_DATA, chunk, (size_t)got);
        left -= got;
    }
    close(file);
}

static int by_name(const struct dirent** a, const struct dirent** b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Sends the files under `folder` (an open directory), whose path relative to the output folder
 * is `prefix` ("" at the top), in name order, folders depth first. */
static void send_output_folder(int folder, const char* prefix, int depth,
                               struct output_budget* budget)
{
    struct dirent** entries = NULL;
    char self[32];
    snprintf(self, sizeof self, "/proc/self/fd/%d", folder);
    const int count = scandir(self, &entries, NULL, by_name);
    for (int i = 0; i < count; ++i) {
        const char* name = entries[i]->d_name;
        char path[CSM_MAX_PATH];
        const int written = snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? "/" : "", name);
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || written < 0 ||
            written >= (int)sizeof path) {
            free(entries[i]);
            continue;
        }
        struct stat info;
        if (fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) != 0) {
            frame_skipped(CSM_SKIP_UNREADABLE, path);
        } else if (S_ISLNK(info.st_mode)) {
            frame_skipped(CSM_SKIP_SYMLINK, path);
        } else if (S_ISDIR(info.st_mode)) {
            const int child =
                depth + 1 >= kMaxOutputDepth
                    ? -1
                    : openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (child < 0) {
                frame_skipped(
                    depth + 1 >= kMaxOutputDepth ? CSM_SKIP_TOO_DEEP : CSM_SKIP_UNREADABLE, path);
            } else {
                send_output_folder(child, path, depth + 1, budget);
                close(child);
            }
        } else if (S_ISREG(info.st_mode)) {
            send_output_file(folder, name, path, budget);
        } else {
            frame_skipped(CSM_SKIP_NOT_REGULAR, path);
        }
        free(entries[i]);
    }
    free(entries);
}

static void send_output_files(const char* out_dir, struct output_budget budget)
{
    const int folder = open(out_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (folder < 0)
        return; /* the program removed it, or made it a link: nothing to send */
    send_output_folder(folder, "", 0, &budget);
    close(folder);
}

static long long now_us(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

static long long now_ms(void)
{
    return now_us() / 1000;
}

static void set_nonblocking(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void usage(void)
{
    fprintf(stderr, "usage: csm-launch [--output-cap BYTES] [--code-limit BYTES] [--listen SOCKET] "
                    "[--limits memory=BYTES,pids=N,millicpus=N] [--unenforced refuse|allow] "
                    "[--cgroup-root DIR] [--out-dir DIR] [--out-files N] [--out-bytes BYTES] "
                    "[--ready-fd N] [--session] [--egress-relay PORT:SOCKET] -- PROGRAM [ARG...]\n"
                    "       csm-launch --egress-carrier SOCKET\n");
    exit(CSM_LAUNCH_EXIT_USAGE);
}

/* The interpreter, started with its stdin, stdout and stderr on pipes (the launcher's ends
 * here), and with --ready-fd, the write end of the ready pipe as that fd (g_ready the read end). */
struct interpreter
{
    pid_t pid;
    int in;
    int out;
    int err;
    int exec_failed;
    int exec_errno;
};

static struct interpreter start_interpreter(char** argv, int ready_fd)
{
    int in[2], out[2], err[2], exec_error[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
        pipe2(exec_error, O_CLOEXEC) != 0)
        fail("creating pipes");
    int ready[2] = {-1, -1};
    if (ready_fd >= 0 && pipe2(ready, O_CLOEXEC) != 0)
        fail("creating pipes");

    struct interpreter interpreter = {.pid = fork()};
    if (interpreter.pid < 0)
        fail("starting the program");
    if (interpreter.pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        if (ready_fd >= 0) {
            /* The exec error pipe must survive the dup2 below. */
            if (exec_error[1] == ready_fd)
                exec_error[1] = fcntl(exec_error[1], F_DUPFD_CLOEXEC, ready_fd + 1);
            if (ready[1] == ready_fd)
                fcntl(ready_fd, F_SETFD, 0);
            else
                dup2(ready[1], ready_fd);
            char number[16];
            snprintf(number, sizeof number, "%d", ready_fd);
            setenv("CSM_READY_FD", number, 1);
        }
        execvp(argv[0], argv);
        const int error = errno;
        if (write(exec_error[1], &error, sizeof error) < 0) {
            /* the parent reports a missing status as a failure anyway */
        }
        _exit(CSM_LAUNCH_EXIT_CANNOT_EXECUTE);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    close(exec_error[1]);
    if (ready_fd >= 0) {
        close(ready[1]);
        g_ready = ready[0];
    }
    interpreter.in = in[1];
    interpreter.out = out[0];
    interpreter.err = err[0];
    interpreter.exec_failed =
        read(exec_error[0], &interpreter.exec_errno, sizeof interpreter.exec_errno) ==
        (ssize_t)sizeof interpreter.exec_errno;
    close(exec_error[0]);
    return interpreter;
}

/* Forwards what is in the program's stdout (stream 0) or stderr (1) as frames, within `cap` in
 * all; closes the stream (-1) at its end. */
static void forward_output(int* fd, int stream, long long cap, long long* forwarded,
                           long long* dropped)
{
    static char chunk[kChunk];
    const ssize_t got = read(*fd, chunk, sizeof chunk);
    if (got > 0) {
        long long room = cap - *forwarded;
        if (room < 0)
            room = 0;
        const long long kept = got < room ? got : room;
        if (kept > 0)
            frame(stream == 0 ? CSM_FRAME_STDOUT : CSM_FRAME_STDERR, chunk, (size_t)kept);
        *forwarded += kept;
        *dropped += got - kept;
    } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        close(*fd);
        *fd = -1;
    }
}

/* Empties the open folder `folder` (links are removed, never followed). */
static void clear_folder(int folder)
{
    DIR* listing = fdopendir(dup(folder));
    if (!listing)
        return;
    for (struct dirent* entry; (entry = readdir(listing)) != NULL;) {
        if (strcmp(entry->d_name, ".") == 0 || strcmp(entry->d_name, "..") == 0)
            continue;
        const int child =
            openat(folder, entry->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child >= 0) {
            clear_folder(child);
            close(child);
            unlinkat(folder, entry->d_name, AT_REMOVEDIR);
        } else {
            unlinkat(folder, entry->d_name, 0);
        }
    }
    closedir(listing);
}

/* The exit frame's text: how the program (or cell) ended, how long it ran (from the started
 * frame to its end, measured here: the host may read both frames at once), and what was lost on
 * the way. */
static void frame_exit(int status, long long elapsed_us, int oom, const long long dropped[2],
                       const char* unenforced_text, const char* extra)
{
    char text[256];
    if (WIFSIGNALED(status))
        snprintf(text, sizeof text, "signal=%d", WTERMSIG(status));
    else
        snprintf(text, sizeof text, "exit=%d", WEXITSTATUS(status));
    snprintf(text + strlen(text), sizeof text - strlen(text),
             " elapsed_us=%lld oom=%d stdout_dropped=%lld stderr_dropped=%lld %s%s",
             elapsed_us < 0 ? 0 : elapsed_us, oom, dropped[0], dropped[1], unenforced_text, extra);
    frame_text(CSM_FRAME_EXIT, text);
}

/* Whether the interpreter has ended; its status in `status` if so. Reaps orphans too. */
static int reap(pid_t child, int* status)
{
    int ended = 0;
    for (;;) {
        int any = 0;
        const pid_t pid = waitpid(-1, &any, WNOHANG);
        if (pid <= 0)
            return ended;
        if (pid == child) {
            *status = any;
            ended = 1;
        }
    }
}

#define CELL_TAG_SIZE 8
#define CELL_END_SIZE (1 + CELL_TAG_SIZE + 4) /* 'e', the tag, the status */

/* A new cell's tag (see the comment at the top): random, or where the kernel has no getrandom,
 * at least different from the last one. */
static void new_cell_tag(unsigned char tag[CELL_TAG_SIZE])
{
    static unsigned long long counter;
    if (getrandom(tag, CELL_TAG_SIZE, 0) == CELL_TAG_SIZE)
        return;
    unsigned long long fallback = (unsigned long long)now_us() ^ (++counter << 48);
    memcpy(tag, &fallback, CELL_TAG_SIZE);
}

/* Looks for the running cell's end in what the driver's report descriptor gave so far: 'e', the
 * tag, then the status. Anything else (what the program wrote there) is dropped, keeping only a
 * tail that may begin the end. Returns 1 and the status once the end is whole. */
static int take_cell_end(unsigned char* held, size_t* size, const unsigned char* tag,
                         int* status)
{
    for (size_t at = 0; at + CELL_END_SIZE <= *size; ++at) {
        if (held[at] == 'e' && memcmp(held + at + 1, tag, CELL_TAG_SIZE) == 0) {
            *status = (int)big_endian(held + at + 1 + CELL_TAG_SIZE, 4);
            *size = 0;
            return 1;
        }
    }
    if (*size >= CELL_END_SIZE) {
        memmove(held, held + *size - (CELL_END_SIZE - 1), CELL_END_SIZE - 1);
        *size = CELL_END_SIZE - 1;
    }
    return 0;
}

/* --session: one driver, many cells (see the comment at the top). Returns the launcher's exit
 * status once the host ends the session or the driver dies. */
static int run_session(char** argv, int ready_fd, const char* listen_path, long long output_cap,
                       long long code_limit, const char* out_dir, struct output_budget budget,
                       int refuse_unenforced, const char* unenforced_text)
{
    if (ready_fd < 0)
        usage();
    const struct interpreter driver = start_interpreter(argv, ready_fd);
    /* The host's messages: on stdin, or (a warm pool's session) on its connection, which it
     * makes while the driver starts up. */
    const int host = listen_path ? accept_host(listen_path) : STDIN_FILENO;
    if (driver.exec_failed) {
        char message[512];
        snprintf(message, sizeof message, "could not start %s: %s", argv[0],
                 strerror(driver.exec_errno));
        frame_text(CSM_FRAME_FAILURE, message);
        return CSM_LAUNCH_EXIT_CANNOT_EXECUTE;
    }
    /* Its start-up (imports) done, the driver says so; a driver that dies first ends it all. */
    char said = 0;
    if (read_exactly(g_ready, &said, 1) != 0 || said != 'r') {
        kill(driver.pid, SIGKILL);
        frame_text(CSM_FRAME_FAILURE, "the session's interpreter did not start");
        return CSM_LAUNCH_EXIT_FAILURE;
    }
    frame(CSM_FRAME_READY, "", 0);
    set_nonblocking(driver.out);
    set_nonblocking(driver.err);
    set_nonblocking(g_ready);
    int streams[2] = {driver.out, driver.err};
    int driver_status = 0;
    int driver_done = 0;

    for (;;) {
        /* Between cells: the host's next message. */
        char kind = 0;
        if (read_exactly(host, &kind, 1) != 0)
            break; /* the host ended the session */
        if (kind == 'I')
            continue; /* an interrupt that came after its cell ended */
        if (kind != 'C') {
            errno = EPROTO;
            fail("reading the host's message");
        }
        if (refuse_unenforced) {
            /* Only with --listen (a cold session is refused before it starts): the container
             * waited as any pooled one does, and the first cell learns why it cannot run. */
            frame_text(CSM_FRAME_LIMITS_UNENFORCED, unenforced_text);
            kill(driver.pid, SIGKILL);
            waitpid(driver.pid, NULL, 0);
            return CSM_LAUNCH_EXIT_LIMITS_UNENFORCED;
        }
        size_t code_size = 0;
        char* code = read_request(host, (size_t)code_limit, &code_size);
        const long oom_before = oom_kills();
        long long forwarded[2] = {0, 0};
        long long dropped[2] = {0, 0};
        frame(CSM_FRAME_STARTED, "", 0);
        const long long cell_started_us = now_us();
        long long cell_ended_us = 0;
        unsigned char head[CSM_REQUEST_LENGTH_SIZE + CELL_TAG_SIZE];
        unsigned long long left = code_size;
        for (int i = CSM_REQUEST_LENGTH_SIZE - 1; i >= 0; --i, left >>= 8)
            head[i] = (unsigned char)(left & 0xff);
        unsigned char* const tag = head + CSM_REQUEST_LENGTH_SIZE;
        new_cell_tag(tag);
        /* The driver reads the whole cell before it runs any of it: these writes cannot wait on
         * output we are not reading yet. */
        const int delivered = write_all(driver.in, head, sizeof head) == 0 &&
                              write_all(driver.in, code, code_size) == 0;
        free(code);

        int cell_status = 0;
        int cell_done = !delivered;
        /* What came on the report descriptor; an end the program wrote between cells is still
         * there, and carries no tag of this cell. */
        unsigned char reports[256];
        size_t reported = 0;
        while (!cell_done && !driver_done) {
            struct pollfd fds[5] = {
                {.fd = g_wake[0], .events = POLLIN},  {.fd = streams[0], .events = POLLIN},
                {.fd = streams[1], .events = POLLIN}, {.fd = g_ready, .events = POLLIN},
                {.fd = host, .events = POLLIN},
            };
            if (poll(fds, 5, -1) < 0 && errno != EINTR)
                fail("waiting for the cell");
            if (fds[0].revents & POLLIN) {
                static char drain[64];
                while (read(g_wake[0], drain, sizeof drain) > 0) {
                }
            }
            driver_done = reap(driver.pid, &driver_status);
            for (int s = 0; s < 2; ++s) {
                if (streams[s] >= 0 && (fds[1 + s].revents & (POLLIN | POLLHUP | POLLERR)))
                    forward_output(&streams[s], s, output_cap, &forwarded[s], &dropped[s]);
            }
            if (fds[3].revents & (POLLIN | POLLHUP | POLLERR)) {
                const ssize_t got = read(g_ready, reports + reported, sizeof reports - reported);
                if (got > 0) {
                    reported += (size_t)got;
                    if (take_cell_end(reports, &reported, tag, &cell_status)) {
                        cell_done = 1;
                        cell_ended_us = now_us();
                    }
                } else if (got == 0) {
                    /* The driver closed its end: it is going. */
                    kill(driver.pid, SIGKILL);
                }
            }
            if (fds[4].revents & (POLLIN | POLLHUP | POLLERR)) {
                if (read_exactly(host, &kind, 1) != 0) {
                    kill(driver.pid, SIGKILL); /* the host is gone */
                } else if (kind == 'I') {
                    kill(driver.pid, SIGINT);
                }
            }
        }
        if (driver_done) {
            /* Whatever it printed on its way out, then how it ended; the session is over. */
            for (int s = 0; s < 2; ++s) {
                while (streams[s] >= 0)
                    forward_output(&streams[s], s, output_cap, &forwarded[s], &dropped[s]);
            }
            const long oom_after = oom_kills();
            frame_exit(driver_status, now_us() - cell_started_us,
                       oom_before >= 0 && oom_after > oom_before, dropped, unenforced_text,
                       " session=0");
            return CSM_LAUNCH_EXIT_FAILURE;
        }
        /* The driver flushed before it reported: what is in the pipes belongs to this cell. */
        for (int s = 0; s < 2; ++s) {
            int fd = streams[s];
            while (fd == streams[s] && fd >= 0) {
                const long long before = forwarded[s] + dropped[s];
                forward_output(&streams[s], s, output_cap, &forwarded[s], &dropped[s]);
                if (forwarded[s] + dropped[s] == before)
                    break; /* empty (EAGAIN) */
            }
        }
        if (out_dir) {
            send_output_files(out_dir, budget);
            const int folder = open(out_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (folder >= 0) {
                clear_folder(folder);
                close(folder);
            }
        }
        const long oom_after = oom_kills();
        /* What the session holds after this cell, for the host's list of sessions. */
        char extra[64] = " session=1";
        const long long memory = memory_in_use();
        if (memory >= 0)
            snprintf(extra, sizeof extra, " session=1 memory=%lld", memory);
        if (cell_ended_us == 0)
            cell_ended_us = now_us(); /* never delivered: it ended as it began */
        frame_exit((cell_status & 0xff) << 8, cell_ended_us - cell_started_us,
                   oom_before >= 0 && oom_after > oom_before, dropped, unenforced_text, extra);
    }
    kill(driver.pid, SIGKILL);
    egress_relay_stop(g_relay); /* it never ends on its own */
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {
    }
    return 0;
}

/* Before anything of the program's can reach it: see the comment at the top. Returns 0, or -1
 * when the core dump limit could not be lowered. */
static int protect_this_process(void)
{
    /* Non-dumpable: the program, though it runs as the same user, cannot open /proc/1/fd/1. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    signal(SIGPIPE, SIG_IGN);
    /* No core dumps, and no way for the program to raise the limit again (the hard limit goes
     * too): on a host whose core_pattern pipes to systemd-coredump, a core and the program's
     * environment (pass-through secrets) would land on the host. Lowering always succeeds. */
    const struct rlimit no_core = {0, 0};
    return setrlimit(RLIMIT_CORE, &no_core);
}

int main(int argc, char** argv)
{
    /* A mode of its own, with no program: it is not the container's PID 1 but an exec into it. */
    if (argc >= 2 && strcmp(argv[1], "--egress-carrier") == 0) {
        if (argc != 3)
            usage();
        /* Its stdout carries the carrier's frames, not the launcher's: a failure goes to stderr. */
        if (protect_this_process() != 0) {
            perror("csm-launch --egress-carrier: setting the core dump limit to 0");
            return CSM_CARRIER_EXIT_FAILURE;
        }
        return egress_carrier_run(argv[2]);
    }
    long long output_cap = 1024 * 1024;
    long long code_limit = 64LL * 1024 * 1024;
    const char* listen_path = NULL;
    const char* egress_relay = NULL;
    const char* limits = NULL;
    const char* out_dir = NULL;
    struct output_budget out_budget = {100, 32LL * 1024 * 1024};
    int allow_unenforced = 0;
    int ready_fd = -1;
    int first = 1;
    for (; first < argc; ++first) {
        if (strcmp(argv[first], "--") == 0) {
            ++first;
            break;
        }
        if (strcmp(argv[first], "--session") == 0) {
            g_session = 1;
            continue;
        }
        if (first + 1 >= argc)
            usage();
        if (strcmp(argv[first], "--output-cap") == 0)
            output_cap = atoll(argv[++first]);
        else if (strcmp(argv[first], "--code-limit") == 0)
            code_limit = atoll(argv[++first]);
        else if (strcmp(argv[first], "--listen") == 0)
            listen_path = argv[++first];
        else if (strcmp(argv[first], "--limits") == 0)
            limits = argv[++first];
        else if (strcmp(argv[first], "--unenforced") == 0)
            allow_unenforced = strcmp(argv[++first], "allow") == 0;
        else if (strcmp(argv[first], "--cgroup-root") == 0)
            g_cgroup_root = argv[++first];
        else if (strcmp(argv[first], "--out-dir") == 0)
            out_dir = argv[++first];
        else if (strcmp(argv[first], "--out-files") == 0)
            out_budget.files_left = atoll(argv[++first]);
        else if (strcmp(argv[first], "--out-bytes") == 0)
            out_budget.bytes_left = atoll(argv[++first]);
        else if (strcmp(argv[first], "--ready-fd") == 0)
            ready_fd = atoi(argv[++first]);
        else if (strcmp(argv[first], "--egress-relay") == 0)
            egress_relay = argv[++first];
        else
            usage();
    }
    /* Not 0-2 (the interpreter's standard streams); only with --listen or --session (nothing
     * waits otherwise); a session needs it (its driver reports there). */
    if (first >= argc ||
        (ready_fd != -1 && (ready_fd < 3 || ready_fd > 255 || (!listen_path && !g_session))) ||
        (g_session && ready_fd == -1))
        usage();

    if (protect_this_process() != 0)
        fail("setting the core dump limit to 0");

    /* Before any of the program's code runs (a warm interpreter starts below). */
    if (egress_relay)
        g_relay = egress_relay_start(egress_relay, fail);

    /* Limits the engine was given but does not enforce: checked before the program can run. */
    const int unenforced = limits ? unenforced_limits(limits) : 0;
    char unenforced_text[32];
    snprintf(unenforced_text, sizeof unenforced_text, "unenforced=%d", unenforced);

    size_t code_size = 0;
    /* The program's output folder, before the interpreter (a warm one starts now) can run. */
    if (out_dir && mkdir(out_dir, 0755) != 0 && errno != EEXIST)
        fail("creating the output folder");
    char* code = listen_path || g_session
                     ? NULL
                     : read_request(STDIN_FILENO, (size_t)code_limit, &code_size);
    if (unenforced && !allow_unenforced && !listen_path) {
        frame_text(CSM_FRAME_LIMITS_UNENFORCED, unenforced_text);
        return CSM_LAUNCH_EXIT_LIMITS_UNENFORCED;
    }

    if (pipe2(g_wake, O_CLOEXEC | O_NONBLOCK) != 0)
        fail("creating pipes");
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_sigchld;
    action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &action, NULL);

    if (g_session)
        return run_session(argv + first, ready_fd, listen_path, output_cap, code_limit, out_dir,
                           out_budget, unenforced && !allow_unenforced, unenforced_text);

    const long oom_before = oom_kills();
    long long started_us = now_us();
    if (!listen_path)
        frame(CSM_FRAME_STARTED, "", 0);
    const struct interpreter interpreter = start_interpreter(argv + first, ready_fd);
    const pid_t child = interpreter.pid;
    const int exec_failed = interpreter.exec_failed;
    const int exec_errno = interpreter.exec_errno;
    if (listen_path) {
        /* The interpreter now waits for its program, and we for the host's call. */
        code = accept_request(listen_path, (size_t)code_limit, &code_size);
        if (unenforced && !allow_unenforced) {
            frame_text(CSM_FRAME_LIMITS_UNENFORCED, unenforced_text);
            kill(child, SIGKILL);
            waitpid(child, NULL, 0);
            return CSM_LAUNCH_EXIT_LIMITS_UNENFORCED;
        }
        if (!exec_failed)
            frame(CSM_FRAME_STARTED, "", 0);
        started_us = now_us(); /* a pooled program's time starts with the call */
    }
    if (exec_failed) {
        char message[512];
        snprintf(message, sizeof message, "could not start %s: %s", argv[first],
                 strerror(exec_errno));
        frame_text(CSM_FRAME_FAILURE, message);
        waitpid(child, NULL, 0);
        return CSM_LAUNCH_EXIT_CANNOT_EXECUTE;
    }

    set_nonblocking(interpreter.in);
    set_nonblocking(interpreter.out);
    set_nonblocking(interpreter.err);

    size_t code_written = 0;
    int code_fd = interpreter.in;
    if (code_size == 0) {
        close(code_fd);
        code_fd = -1;
    }
    int stream_fd[2] = {interpreter.out, interpreter.err};
    long long forwarded[2] = {0, 0};
    long long dropped[2] = {0, 0};
    int child_status = 0;
    int child_done = 0;
    long long ended_us = 0;
    long long drain_deadline = 0;
    static char chunk[kChunk];

    while (stream_fd[0] >= 0 || stream_fd[1] >= 0 || !child_done) {
        struct pollfd fds[4];
        int count = 0;
        fds[count++] = (struct pollfd){.fd = g_wake[0], .events = POLLIN};
        for (int s = 0; s < 2; ++s)
            fds[count++] = (struct pollfd){.fd = stream_fd[s], .events = POLLIN};
        fds[count++] = (struct pollfd){.fd = code_fd, .events = POLLOUT};
        int timeout = -1;
        if (child_done) {
            timeout = (int)(drain_deadline - now_ms());
            if (timeout <= 0)
                break;
        }
        if (poll(fds, (nfds_t)count, timeout) < 0 && errno != EINTR)
            fail("waiting for the program");

        if (fds[0].revents & POLLIN) {
            while (read(g_wake[0], chunk, sizeof chunk) > 0) {
            }
        }
        /* Reap every child: orphans are re-parented to us, PID 1. */
        for (;;) {
            int status = 0;
            const pid_t pid = waitpid(-1, &status, WNOHANG);
            if (pid <= 0)
                break;
            if (pid == child) {
                child_status = status;
                child_done = 1;
                ended_us = now_us();
                drain_deadline = now_ms() + kDrainAfterExitMs;
            }
        }
        for (int s = 0; s < 2; ++s) {
            if (stream_fd[s] >= 0 && (fds[1 + s].revents & (POLLIN | POLLHUP | POLLERR)))
                forward_output(&stream_fd[s], s, output_cap, &forwarded[s], &dropped[s]);
        }
        if (code_fd >= 0 && (fds[3].revents & (POLLOUT | POLLERR | POLLHUP))) {
            const ssize_t written = write(code_fd, code + code_written, code_size - code_written);
            if (written > 0)
                code_written += (size_t)written;
            if ((written < 0 && errno != EAGAIN && errno != EINTR) || code_written == code_size) {
                close(code_fd); /* done, or the program closed its stdin: fine either way */
                code_fd = -1;
                free(code);
                code = NULL;
            }
        }
    }

    const long oom_after = oom_kills();
    const int oom = oom_before >= 0 && oom_after > oom_before;
    if (out_dir) {
        /* Whatever the program left running goes now (the container ends with us anyway), so
         * the output folder holds still while it is read. Only as the container's PID 1: run
         * anywhere else (a test), kill(-1) would reach every process of the account. */
        if (getpid() == 1) {
            kill(-1, SIGKILL);
            while (waitpid(-1, NULL, 0) > 0 || errno == EINTR) {
            }
        }
        send_output_files(out_dir, out_budget);
    }
    frame_exit(child_status, ended_us - started_us, oom, dropped, unenforced_text, "");
    return WIFSIGNALED(child_status) ? 128 + WTERMSIG(child_status) : WEXITSTATUS(child_status);
}
