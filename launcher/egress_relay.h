/*
 * The sandbox's way out in egress proxy mode (issue 18). The container has no network, only its
 * own loopback; the relay listens there (127.0.0.1:PORT, which HTTP_PROXY names) and carries each
 * connection the program opens, byte for byte, to the server's egress proxy through a Unix socket
 * in a folder the host mounts read-only into the container. The proxy on the host reads the
 * request, decides and connects; the relay decides nothing and needs no trust: a program that
 * bypasses it reaches the same socket and the same proxy, and one that kills it loses its own
 * network only.
 *
 * On a remote engine no host folder reaches the container: SOCKET is then "@name", an abstract
 * Unix socket of the container's own network namespace, where the egress carrier listens
 * (egress_carrier.h) and carries the connections to the server over an exec's stdin and stdout.
 */
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

struct sockaddr_un;

/* The address of SOCKET: a path, or with a leading '@' a Linux abstract socket (the name after
 * the '@', held by no file: it lives in the network namespace). Returns the address's length for
 * bind() and connect(), 0 when the name is empty or too long. */
socklen_t egress_socket_address(const char* socket_name, struct sockaddr_un* address);

/* Parses "PORT:SOCKET" (--egress-relay), binds 127.0.0.1:PORT before anything of the program's
 * runs (so its first connection finds it), and forks the relay. Returns its pid; exits through
 * the launcher's failure path (`fail`) when the port cannot be bound. */
pid_t egress_relay_start(const char* spec, void (*fail)(const char* what));

/* Ends the relay (a session's launcher waits for every child at the end). */
void egress_relay_stop(pid_t relay);
