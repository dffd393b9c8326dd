#define _GNU_SOURCE
#include "egress_carrier.h"

#include "csm/egress_carrier_protocol.h"
#include "egress_relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

enum
{
    kMaxFrame = CSM_CARRIER_HEADER_SIZE + CSM_CARRIER_MAX_DATA,
    /* Frames queued for the server beyond which no connection is read (nor a new one taken):
     * a server that reads slowly slows the program down instead of growing this process. */
    kOutputHighWater = 256 * 1024,
};

/* Bytes waiting to be written somewhere: bytes[start, start + length) of `capacity`. */
struct buffer
{
    unsigned char* bytes;
    size_t start;
    size_t length;
    size_t capacity;
};

/* One connection the relay made, carried for the server under `id`. */
struct connection
{
    uint32_t id;
    int fd;
    /* Bytes of its data we may still send before the server acknowledges some. */
    uint32_t credit;
    /* The server's data, not yet written to fd (acknowledged as it is written). */
    struct buffer to_program;
    int end_sent;      /* fd said end of stream, and we told the server */
    int end_received;  /* the server said end of stream */
    int shut_down;     /* ...and fd was told so, once the bytes before it were through */
    int write_blocked; /* fd took no more: retried once poll says writable */
};

static struct connection* g_connections[CSM_CARRIER_MAX_CONNECTIONS];
/* The last id given; ids are never reused, so a frame for one at or below it that is not open
 * is for a connection already done (the server may not know it yet). */
static uint32_t g_last_id;
/* accept4 ran out of descriptors: the listener is not watched until a connection closes (it
 * would stay readable and spin the loop). */
static int g_accept_paused;
/* Frames for the server, written to stdout as fast as it reads them. */
static struct buffer g_to_server;
/* The server's frames: never more than one whole frame beyond what has been handled. */
static unsigned char g_from_server[kMaxFrame];
static size_t g_from_server_length;

static _Noreturn void protocol_breach(const char* what)
{
    fprintf(stderr, "csm-launch --egress-carrier: the server broke the protocol: %s\n", what);
    _exit(CSM_CARRIER_EXIT_BREACH);
}

static _Noreturn void out_of_memory(void)
{
    fprintf(stderr, "csm-launch --egress-carrier: out of memory\n");
    _exit(CSM_CARRIER_EXIT_FAILURE);
}

static void write_u32(unsigned char* bytes, uint32_t value)
{
    bytes[0] = (unsigned char)(value >> 24);
    bytes[1] = (unsigned char)(value >> 16);
    bytes[2] = (unsigned char)(value >> 8);
    bytes[3] = (unsigned char)value;
}

static uint32_t read_u32(const unsigned char* bytes)
{
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 |
           (uint32_t)bytes[3];
}

/* Room for `size` more bytes at the end of `buffer` (not yet counted in its length): what was
 * consumed is reclaimed first, then it grows. */
static unsigned char* buffer_space(struct buffer* buffer, size_t size)
{
    if (buffer->start > 0 && buffer->start + buffer->length + size > buffer->capacity) {
        memmove(buffer->bytes, buffer->bytes + buffer->start, buffer->length);
        buffer->start = 0;
    }
    if (buffer->length + size > buffer->capacity) {
        size_t capacity = buffer->capacity ? buffer->capacity : 4096;
        while (capacity < buffer->length + size)
            capacity *= 2;
        unsigned char* bytes = realloc(buffer->bytes, capacity);
        if (!bytes)
            out_of_memory();
        buffer->bytes = bytes;
        buffer->capacity = capacity;
    }
    return buffer->bytes + buffer->start + buffer->length;
}

static void buffer_consume(struct buffer* buffer, size_t size)
{
    buffer->start += size;
    buffer->length -= size;
    if (buffer->length == 0)
        buffer->start = 0;
}

static void write_header(unsigned char* header, int type, uint32_t id, uint32_t size)
{
    header[0] = (unsigned char)type;
    write_u32(header + 1, id);
    write_u32(header + 5, size);
}

static void send_frame(int type, uint32_t id, const void* payload, uint32_t size)
{
    unsigned char* frame = buffer_space(&g_to_server, CSM_CARRIER_HEADER_SIZE + size);
    write_header(frame, type, id, size);
    if (size > 0)
        memcpy(frame + CSM_CARRIER_HEADER_SIZE, payload, size);
    g_to_server.length += CSM_CARRIER_HEADER_SIZE + size;
}

static void send_ack(uint32_t id, uint32_t count)
{
    unsigned char payload[CSM_CARRIER_ACK_SIZE];
    write_u32(payload, count);
    send_frame(CSM_CARRIER_ACK, id, payload, sizeof payload);
}

/* Writes what stdout takes now. The server gone (EPIPE) is the carrier's end. */
static void flush_to_server(void)
{
    while (g_to_server.length > 0) {
        const ssize_t written =
            write(STDOUT_FILENO, g_to_server.bytes + g_to_server.start, g_to_server.length);
        if (written > 0)
            buffer_consume(&g_to_server, (size_t)written);
        else if (written < 0 && errno == EINTR)
            continue;
        else if (written < 0 && errno == EAGAIN)
            return;
        else
            _exit(CSM_CARRIER_EXIT_DONE);
    }
}

static int find_slot(uint32_t id)
{
    for (int i = 0; i < CSM_CARRIER_MAX_CONNECTIONS; ++i) {
        if (g_connections[i] && g_connections[i]->id == id)
            return i;
    }
    return -1;
}

/* Closes the connection's descriptor and forgets it; its id is never used again. */
static void drop(int slot)
{
    struct connection* connection = g_connections[slot];
    close(connection->fd);
    free(connection->to_program.bytes);
    free(connection);
    g_connections[slot] = NULL;
    g_accept_paused = 0;
}

/* The connection broke on this side: the server hears so, and nothing more of it. */
static void send_close_and_drop(int slot)
{
    send_frame(CSM_CARRIER_CLOSE, g_connections[slot]->id, NULL, 0);
    drop(slot);
}

static void accept_connections(int listener)
{
    for (;;) {
        const int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE)
                g_accept_paused = 1;
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return;
        }
        int slot = 0;
        while (slot < CSM_CARRIER_MAX_CONNECTIONS && g_connections[slot])
            ++slot;
        struct connection* connection = slot < CSM_CARRIER_MAX_CONNECTIONS && g_last_id < UINT32_MAX
                                            ? calloc(1, sizeof *connection)
                                            : NULL;
        if (!connection) {
            /* Too many at once: the relay answers the program that the proxy is unreachable. */
            close(fd);
            continue;
        }
        connection->id = ++g_last_id;
        connection->fd = fd;
        connection->credit = CSM_CARRIER_WINDOW;
        g_connections[slot] = connection;
        send_frame(CSM_CARRIER_OPEN, connection->id, NULL, 0);
    }
}

static int may_read(const struct connection* connection)
{
    return !connection->end_sent && connection->credit > 0 &&
           g_to_server.length <= kOutputHighWater;
}

/* Reads what the window allows straight into a data frame (no copy); an end of stream becomes
 * an end frame, an error (a reset) a close. */
static void read_from_program(int slot)
{
    struct connection* connection = g_connections[slot];
    const uint32_t want =
        connection->credit < CSM_CARRIER_MAX_DATA ? connection->credit : CSM_CARRIER_MAX_DATA;
    unsigned char* frame = buffer_space(&g_to_server, CSM_CARRIER_HEADER_SIZE + want);
    const ssize_t got = read(connection->fd, frame + CSM_CARRIER_HEADER_SIZE, want);
    if (got > 0) {
        write_header(frame, CSM_CARRIER_DATA, connection->id, (uint32_t)got);
        g_to_server.length += CSM_CARRIER_HEADER_SIZE + (size_t)got;
        connection->credit -= (uint32_t)got;
    } else if (got == 0) {
        connection->end_sent = 1;
        send_frame(CSM_CARRIER_END, connection->id, NULL, 0);
        if (connection->shut_down)
            drop(slot); /* the server's end came first: both ends are done */
    } else if (errno != EAGAIN && errno != EINTR) {
        send_close_and_drop(slot);
    }
}

/* Writes the server's bytes the program's side takes now, acknowledges them in one frame, and
 * passes on the server's end once everything before it is through. A connection both of whose
 * ends are done is closed. */
static void write_to_program(int slot)
{
    struct connection* connection = g_connections[slot];
    struct buffer* pending = &connection->to_program;
    uint32_t written_now = 0;
    while (pending->length > 0 && !connection->write_blocked) {
        const ssize_t written = send(connection->fd, pending->bytes + pending->start,
                                     pending->length, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (written > 0) {
            buffer_consume(pending, (size_t)written);
            written_now += (uint32_t)written;
        } else if (written < 0 && errno == EAGAIN) {
            connection->write_blocked = 1;
        } else if (!(written < 0 && errno == EINTR)) {
            send_close_and_drop(slot); /* the program's end is gone (EPIPE, ECONNRESET) */
            return;
        }
    }
    /* Only bytes the program's side has taken: the server may send as many again. */
    if (written_now > 0)
        send_ack(connection->id, written_now);
    if (connection->end_received && pending->length == 0 && !connection->shut_down) {
        shutdown(connection->fd, SHUT_WR);
        connection->shut_down = 1;
    }
    if (connection->end_sent && connection->shut_down)
        drop(slot);
}

/* The header's type and length, checked before its payload is waited for: a frame this carrier
 * cannot take is a breach however it would go on. */
static void check_header(int type, uint32_t size)
{
    switch (type) {
    case CSM_CARRIER_DATA:
        if (size == 0 || size > CSM_CARRIER_MAX_DATA)
            protocol_breach("a data frame of a size out of bounds");
        return;
    case CSM_CARRIER_ACK:
        if (size != CSM_CARRIER_ACK_SIZE)
            protocol_breach("an ack frame whose payload is not 4 bytes");
        return;
    case CSM_CARRIER_END:
    case CSM_CARRIER_CLOSE:
        if (size != 0)
            protocol_breach("an end or close frame with a payload");
        return;
    case CSM_CARRIER_HELLO:
    case CSM_CARRIER_OPEN:
        protocol_breach("a hello or open frame, which only the carrier sends");
    default:
        protocol_breach("a frame of an unknown type");
    }
}

static void receive_data(int slot, const unsigned char* payload, uint32_t size)
{
    struct connection* connection = g_connections[slot];
    struct buffer* pending = &connection->to_program;
    if (connection->end_received)
        protocol_breach("data after the end of a connection");
    if (pending->length + size > CSM_CARRIER_WINDOW)
        protocol_breach("data beyond the window");
    memcpy(buffer_space(pending, size), payload, size);
    pending->length += size;
    write_to_program(slot); /* at once: most of the time the program's side takes it all */
}

static void receive_ack(int slot, uint32_t count)
{
    struct connection* connection = g_connections[slot];
    if (count > CSM_CARRIER_WINDOW - connection->credit)
        protocol_breach("an ack of more than was sent");
    connection->credit += count;
}

static void receive_frame(int type, uint32_t id, const unsigned char* payload, uint32_t size)
{
    if (id == 0 || id > g_last_id)
        protocol_breach("a frame for a connection never opened");
    const int slot = find_slot(id);
    if (slot < 0)
        return; /* done here already; the server had not heard yet */
    switch (type) {
    case CSM_CARRIER_DATA:
        receive_data(slot, payload, size);
        break;
    case CSM_CARRIER_END:
        if (g_connections[slot]->end_received)
            protocol_breach("a second end of a connection");
        g_connections[slot]->end_received = 1;
        write_to_program(slot);
        break;
    case CSM_CARRIER_CLOSE:
        drop(slot); /* the server's end is gone: nothing more to say about it */
        break;
    case CSM_CARRIER_ACK:
        receive_ack(slot, read_u32(payload));
        break;
    }
}

/* Reads what stdin has and handles every whole frame in it. Its end is the server's: the
 * carrier's end too. */
static void read_from_server(void)
{
    const ssize_t got = read(STDIN_FILENO, g_from_server + g_from_server_length,
                             sizeof g_from_server - g_from_server_length);
    if (got < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (got <= 0)
        _exit(CSM_CARRIER_EXIT_DONE);
    g_from_server_length += (size_t)got;
    size_t at = 0;
    while (g_from_server_length - at >= CSM_CARRIER_HEADER_SIZE) {
        const unsigned char* header = g_from_server + at;
        const uint32_t size = read_u32(header + 5);
        check_header(header[0], size);
        /* A checked header's frame fits the buffer whole: reading on completes it. */
        if (g_from_server_length - at < CSM_CARRIER_HEADER_SIZE + size)
            break;
        receive_frame(header[0], read_u32(header + 1), header + CSM_CARRIER_HEADER_SIZE, size);
        at += CSM_CARRIER_HEADER_SIZE + size;
    }
    memmove(g_from_server, g_from_server + at, g_from_server_length - at);
    g_from_server_length -= at;
}

static int listen_on(const char* socket_name)
{
    struct sockaddr_un address;
    const socklen_t length = egress_socket_address(socket_name, &address);
    if (length == 0) {
        fprintf(stderr, "csm-launch --egress-carrier: %s: the socket name is empty or too long\n",
                socket_name);
        return -1;
    }
    if (socket_name[0] != '@')
        unlink(socket_name); /* a path left by an earlier carrier */
    const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (listener < 0 || bind(listener, (struct sockaddr*)&address, length) != 0 ||
        listen(listener, 128) != 0) {
        fprintf(stderr, "csm-launch --egress-carrier: cannot listen on %s: %s\n", socket_name,
                strerror(errno));
        return -1;
    }
    return listener;
}

int egress_carrier_run(const char* socket_name)
{
    const int listener = listen_on(socket_name);
    if (listener < 0)
        return CSM_CARRIER_EXIT_FAILURE;
    /* Non-blocking: a server that reads slowly must not stop the connections' other way. */
    fcntl(STDOUT_FILENO, F_SETFL, fcntl(STDOUT_FILENO, F_GETFL) | O_NONBLOCK);
    send_frame(CSM_CARRIER_HELLO, 0, NULL, 0);
    flush_to_server();

    enum
    {
        kListener,
        kStdin,
        kStdout,
        kFirstConnection
    };
    struct pollfd fds[kFirstConnection + CSM_CARRIER_MAX_CONNECTIONS];
    for (;;) {
        const int may_accept = !g_accept_paused && g_to_server.length <= kOutputHighWater;
        fds[kListener] = (struct pollfd){.fd = may_accept ? listener : -1, .events = POLLIN};
        fds[kStdin] = (struct pollfd){.fd = STDIN_FILENO, .events = POLLIN};
        fds[kStdout] =
            (struct pollfd){.fd = g_to_server.length > 0 ? STDOUT_FILENO : -1, .events = POLLOUT};
        for (int i = 0; i < CSM_CARRIER_MAX_CONNECTIONS; ++i) {
            const struct connection* connection = g_connections[i];
            short events = 0;
            if (connection && may_read(connection))
                events |= POLLIN;
            if (connection && connection->to_program.length > 0)
                events |= POLLOUT;
            /* A connection we want nothing from stays out of the set: its hang-up would
             * otherwise wake us again and again. */
            fds[kFirstConnection + i] =
                (struct pollfd){.fd = events ? connection->fd : -1, .events = events};
        }
        if (poll(fds, kFirstConnection + CSM_CARRIER_MAX_CONNECTIONS, -1) < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "csm-launch --egress-carrier: poll: %s\n", strerror(errno));
            return CSM_CARRIER_EXIT_FAILURE;
        }
        if (fds[kStdin].revents)
            read_from_server();
        for (int i = 0; i < CSM_CARRIER_MAX_CONNECTIONS; ++i) {
            const short revents = fds[kFirstConnection + i].revents;
            /* The server's frames above may have dropped it (no new one comes before accept). */
            if (!g_connections[i] || !revents)
                continue;
            if (revents & (POLLOUT | POLLERR | POLLHUP)) {
                g_connections[i]->write_blocked = 0;
                write_to_program(i);
            }
            if (g_connections[i] && (revents & (POLLIN | POLLERR | POLLHUP)) &&
                may_read(g_connections[i]))
                read_from_program(i);
        }
        if (fds[kListener].revents & POLLIN)
            accept_connections(listener);
        flush_to_server();
    }
}
