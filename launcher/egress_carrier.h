/*
 * The egress carrier (issue 20): the container's end of a remote engine's way to the server's
 * egress proxy. No host folder (so no Unix socket of the host) reaches a container of a remote
 * engine, so the server runs `exec -i CONTAINER csm-launch --egress-carrier SOCKET` through the
 * engine. The carrier listens on SOCKET (usually "@name", an abstract Unix socket of the
 * container's network namespace), where the relay (egress_relay.h) connects for each of the
 * program's connections, and carries them all, multiplexed, over its stdin and stdout in the
 * frames of csm/egress_carrier_protocol.h. It decides nothing: the proxy on the server does.
 */
#pragma once

/* Exit statuses of egress_carrier_run(). */
enum
{
    /* The server went away (its stdin ended, or its stdout broke): the carrier's normal end. */
    CSM_CARRIER_EXIT_DONE = 0,
    /* SOCKET could not be listened on, or memory ran out (a line on stderr says why). */
    CSM_CARRIER_EXIT_FAILURE = 1,
    /* The server broke the protocol (a line on stderr says how): it carries nothing more. */
    CSM_CARRIER_EXIT_BREACH = 2
};

/* Listens on SOCKET ("@name" abstract, otherwise a path), says hello on stdout and carries
 * connections until the server goes away. Returns the exit status. */
int egress_carrier_run(const char* socket_name);
