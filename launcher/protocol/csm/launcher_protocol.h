/*
 * The wire protocol between csm-launch (C, static, inside every sandbox) and the server that
 * decodes it (C++, LauncherStreamDecoder and LauncherExitStatus): one definition for both sides,
 * so neither can drift from the other. Plain C11 that compiles as C++ too (the engine builds
 * with -Wold-style-cast: no casts here), nothing beyond <stdint.h>.
 *
 * The launcher writes frames on its stdout (or on the host's connection in --listen mode):
 *
 *     frame = type (1 byte) | payload length (4 bytes, big-endian) | payload
 *
 * In --listen mode the host's request is the program, preceded by its length (8 bytes,
 * big-endian).
 */
#pragma once

#include <stdint.h>

/* The frame types, each an ASCII letter. */
enum
{
    /* The program has been handed to the interpreter (the timeout starts here); no payload. */
    CSM_FRAME_STARTED = 'S',
    /* A chunk of the program's stdout / stderr. */
    CSM_FRAME_STDOUT = 'O',
    CSM_FRAME_STDERR = 'E',
    /* The program ended: "exit=N" or "signal=N", then " oom=0|1 stdout_dropped=N
     * stderr_dropped=N unenforced=N". */
    CSM_FRAME_EXIT = 'X',
    /* A failure before the program ran: a message. */
    CSM_FRAME_FAILURE = 'F',
    /* The program was not run because limits it was given are not enforced: "unenforced=N". */
    CSM_FRAME_LIMITS_UNENFORCED = 'L'
};

enum
{
    CSM_FRAME_HEADER_SIZE = 5,
    /* No frame is larger: the launcher forwards output in smaller chunks, and a reader may take
     * a larger length for a stream that is not the launcher's. */
    CSM_FRAME_MAX_PAYLOAD = 1024 * 1024,
    /* The length before the program in a --listen request. */
    CSM_REQUEST_LENGTH_SIZE = 8
};

/* The bits of "unenforced=N": limits given with --limits that the container's cgroup does not
 * show (the engine accepted them and ignored them, as rootless Podman does on cgroup v1). */
enum
{
    CSM_LIMIT_MEMORY = 1,
    CSM_LIMIT_PIDS = 2,
    CSM_LIMIT_CPU = 4,
    CSM_LIMIT_ALL = CSM_LIMIT_MEMORY | CSM_LIMIT_PIDS | CSM_LIMIT_CPU
};

/* The launcher's own exit codes; otherwise it exits as the program did (128 + N for signal N). */
enum
{
    CSM_LAUNCH_EXIT_USAGE = 2,
    /* Nobody reads the frames any more. */
    CSM_LAUNCH_EXIT_FRAMES_UNWRITABLE = 120,
    /* A failure before the program ran, after its failure frame. */
    CSM_LAUNCH_EXIT_FAILURE = 121,
    /* The program was not run, after the limits frame. */
    CSM_LAUNCH_EXIT_LIMITS_UNENFORCED = 122,
    /* The interpreter could not be started, after its failure frame. */
    CSM_LAUNCH_EXIT_CANNOT_EXECUTE = 127
};

/* Writes the header of a frame of `type` carrying `size` bytes. */
static inline void csm_frame_header_write(unsigned char header[CSM_FRAME_HEADER_SIZE], int type,
                                          uint32_t size)
{
    /* Implicit conversions keep the low byte: a cast would be C's only kind, which C++ flags. */
    header[0] = type & 0xff;
    header[1] = (size >> 24) & 0xff;
    header[2] = (size >> 16) & 0xff;
    header[3] = (size >> 8) & 0xff;
    header[4] = size & 0xff;
}

/* The payload length a frame header announces. */
static inline uint32_t
csm_frame_header_payload_size(const unsigned char header[CSM_FRAME_HEADER_SIZE])
{
    const uint32_t b1 = header[1], b2 = header[2], b3 = header[3], b4 = header[4];
    return (b1 << 24) | (b2 << 16) | (b3 << 8) | b4;
}
