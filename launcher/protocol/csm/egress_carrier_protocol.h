/*
 * The egress carrier's wire protocol (issue 20): how a sandbox on a remote engine reaches the
 * server's egress proxy. No host folder (and so no Unix socket of the host) reaches such a
 * sandbox, so the server runs `exec -i CONTAINER csm-launch --egress-carrier SOCKET` through the
 * engine, and the carrier listens on SOCKET (an abstract Unix socket of the container's own
 * network namespace, "@name") where the launcher's relay connects for each of the program's
 * connections. All of them travel, multiplexed, over the exec's stdin and stdout; the server
 * connects each to the run's proxy (EgressCarrier). One definition for both sides, like
 * launcher_protocol.h: plain C11 that compiles as C++ too.
 *
 *     frame = type (1 byte) | connection id (4 bytes) | payload length (4 bytes) | payload
 *
 * integers big-endian. Ids are chosen by the carrier, from 1 up, never reused by one carrier.
 *
 * Flow control: each side may have at most CSM_CARRIER_WINDOW bytes of one connection's data
 * sent and not yet acknowledged; the receiver acknowledges bytes once it has passed them on. So
 * neither side buffers more than a window per connection, and a slow connection stalls no other.
 *
 * A connection is done for a side once it has both sent and received an end (and written out
 * what it received), or on a close. Anything else (an unknown type or id, a payload too large
 * or beyond the window, a second open) is a breach: the receiver stops carrying altogether.
 */
#pragma once

#include <stdint.h>

enum
{
    /* Carrier to server, once, first: it listens on SOCKET; id 0, no payload. */
    CSM_CARRIER_HELLO = 'H',
    /* Carrier to server: the relay connected (a new connection, its new id); no payload. */
    CSM_CARRIER_OPEN = 'O',
    /* Either way: bytes of the connection, 1 to CSM_CARRIER_MAX_DATA of them. */
    CSM_CARRIER_DATA = 'D',
    /* Either way: the sender's end will send nothing more (the reader half-closes its end once
     * the data before it is written); no payload. */
    CSM_CARRIER_END = 'E',
    /* Either way: the connection is gone (reset, refused, error); nothing more is sent for it
     * and what was not yet written is dropped; no payload. */
    CSM_CARRIER_CLOSE = 'X',
    /* Either way: 4 bytes, a count of the other side's data bytes passed on, which it may send
     * again. */
    CSM_CARRIER_ACK = 'A'
};

enum
{
    CSM_CARRIER_HEADER_SIZE = 9,
    CSM_CARRIER_MAX_DATA = 64 * 1024,
    CSM_CARRIER_ACK_SIZE = 4,
    CSM_CARRIER_WINDOW = 1024 * 1024,
    /* Connections open at once; the proxy's own cap (64 by default) is lower. */
    CSM_CARRIER_MAX_CONNECTIONS = 256
};
