#pragma once

#include "csm/launcher_protocol.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace csm {

// Reads csm-launch's framed stdout (csm/launcher_protocol.h): type byte, 4-byte big-endian
// length, payload. Incremental: bytes go in as they arrive, whole frames come out.
class LauncherStreamDecoder final
{
public:
    struct Frame
    {
        enum class Type
        {
            Started,
            Stdout,
            Stderr,
            Exit,
            Failure,
            // The program was not run: limits it was given are not enforced ("unenforced=N").
            LimitsUnenforced,
            // A file of the output folder: its size and path, then its content in FileData
            // frames; or a file that is not sent, with the reason.
            File,
            FileData,
            FileSkipped,
            // A pooled container's interpreter is ready for its program (before any request).
            Ready,
            // An attached pooled container's launcher runs (before Ready).
            Up,
        };
        Type type;
        QByteArray payload;
    };

    // No frame the launcher writes is larger (it forwards output in chunks of 64 KiB).
    static constexpr qsizetype kMaxPayload = CSM_FRAME_MAX_PAYLOAD;

    void append(const QByteArray& bytes);
    // The next complete frame, if any. Nothing more comes out once the stream is corrupt.
    std::optional<Frame> next();
    // The stream broke the protocol (unknown type, oversized frame): not our launcher talking.
    bool isCorrupt() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }
    qsizetype pendingBytes() const { return m_buffer.size() - m_offset; }
    // The bytes received but not yet part of a frame; the decoder is empty afterwards.
    QByteArray takePending();

private:
    QByteArray m_buffer;
    qsizetype m_offset = 0;
    QString m_error;
};

} // namespace csm
