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
 * The host's request (on stdin, or on the connection in --listen mode) is the program and the
 * files to place in the working directory before it starts:
 *
 *     request = program length (8 bytes) | program | file* | 0 (4 bytes)
 *     file    = path length (4 bytes, > 0) | path | size (8 bytes) | content
 *
 * all lengths big-endian; a path is relative to the working directory ('/'-separated, no "..").
 *
 * After the program ends (and its output is forwarded), the launcher sends the files it left in
 * the output folder (--out-dir), before the exit frame: for each, a file frame and its content in
 * data frames, or a skip frame saying why it was not sent.
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
    /* The program ended: "exit=N" or "signal=N", then " elapsed_us=N oom=0|1 stdout_dropped=N
     * stderr_dropped=N unenforced=N" (elapsed_us: from the started frame to the program's end,
     * measured by the launcher). */
    CSM_FRAME_EXIT = 'X',
    /* A failure before the program ran: a message. */
    CSM_FRAME_FAILURE = 'F',
    /* The program was not run because limits it was given are not enforced: "unenforced=N". */
    CSM_FRAME_LIMITS_UNENFORCED = 'L',
    /* A file from the output folder begins: its size (8 bytes, big-endian), then its path
     * relative to the output folder (raw bytes, as the program named it). */
    CSM_FRAME_FILE = 'P',
    /* A chunk of the current file's content; the file ends at the next file, skip or exit
     * frame. */
    CSM_FRAME_FILE_DATA = 'D',
    /* A file of the output folder that is not sent: a reason (one byte, below), then its path. */
    CSM_FRAME_FILE_SKIPPED = 'K',
    /* --listen only, before any request: the interpreter is ready for its program (with
     * --ready-fd, it said so; otherwise at once); no payload. A host that has already sent its
     * request may still receive it, and ignores it. */
    CSM_FRAME_READY = 'R',
    /* --listen - only (a remote engine's warm container, attached), first: the launcher runs and
     * its interpreter has been started, so the engine is done creating the container (over a
     * socket, connecting says as much); no payload. A host that has already sent its request
     * may still receive it, and ignores it. */
    CSM_FRAME_UP = 'U'
};

/* Why a file of the output folder was not sent (the first byte of a skip frame). */
enum
{
    CSM_SKIP_SYMLINK = 'l',     /* a symbolic link: never followed */
    CSM_SKIP_NOT_REGULAR = 't', /* a FIFO, device or socket */
    CSM_SKIP_TOO_MANY = 'n',    /* over the count cap (--out-files) */
    CSM_SKIP_TOO_LARGE = 'b',   /* over the total size cap (--out-bytes) */
    CSM_SKIP_UNREADABLE = 'e',  /* could not be opened or read */
    CSM_SKIP_TOO_DEEP = 'd'     /* a folder nested deeper than the launcher looks */
};

enum
{
    CSM_FRAME_HEADER_SIZE = 5,
    /* No frame is larger: the launcher forwards output in smaller chunks, and a reader may take
     * a larger length for a stream that is not the launcher's. */
    CSM_FRAME_MAX_PAYLOAD = 1024 * 1024,
    /* The length before the program in a request, and before a file's content. */
    CSM_REQUEST_LENGTH_SIZE = 8,
    /* The length before a file's path in a request. */
    CSM_REQUEST_PATH_LENGTH_SIZE = 4,
    /* No path in a request or a file frame is longer. */
    CSM_MAX_PATH = 4096
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
