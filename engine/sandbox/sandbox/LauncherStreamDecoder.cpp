#include "sandbox/LauncherStreamDecoder.h"

namespace csm {

namespace {
constexpr qsizetype kHeaderSize = CSM_FRAME_HEADER_SIZE;
}

void LauncherStreamDecoder::append(const QByteArray& bytes)
{
    if (isCorrupt())
        return;
    // Drop what was consumed before growing, so a long run keeps one frame's worth of memory.
    if (m_offset > 0) {
        m_buffer.remove(0, m_offset);
        m_offset = 0;
    }
    m_buffer.append(bytes);
}

QByteArray LauncherStreamDecoder::takePending()
{
    QByteArray pending = m_buffer.mid(m_offset);
    m_buffer.clear();
    m_offset = 0;
    return pending;
}

std::optional<LauncherStreamDecoder::Frame> LauncherStreamDecoder::next()
{
    if (isCorrupt() || pendingBytes() < kHeaderSize)
        return std::nullopt;
    const auto* header = reinterpret_cast<const unsigned char*>(m_buffer.constData() + m_offset);
    const quint32 length = csm_frame_header_payload_size(header);
    Frame::Type type;
    switch (header[0]) {
    case CSM_FRAME_STARTED:
        type = Frame::Type::Started;
        break;
    case CSM_FRAME_STDOUT:
        type = Frame::Type::Stdout;
        break;
    case CSM_FRAME_STDERR:
        type = Frame::Type::Stderr;
        break;
    case CSM_FRAME_EXIT:
        type = Frame::Type::Exit;
        break;
    case CSM_FRAME_FAILURE:
        type = Frame::Type::Failure;
        break;
    case CSM_FRAME_LIMITS_UNENFORCED:
        type = Frame::Type::LimitsUnenforced;
        break;
    case CSM_FRAME_FILE:
        type = Frame::Type::File;
        break;
    case CSM_FRAME_FILE_DATA:
        type = Frame::Type::FileData;
        break;
    case CSM_FRAME_FILE_SKIPPED:
        type = Frame::Type::FileSkipped;
        break;
    case CSM_FRAME_READY:
        type = Frame::Type::Ready;
        break;
    case CSM_FRAME_UP:
        type = Frame::Type::Up;
        break;
    default:
        m_error = QStringLiteral("unknown frame type 0x%1").arg(header[0], 2, 16, QLatin1Char('0'));
        return std::nullopt;
    }
    if (length > kMaxPayload) {
        m_error = QStringLiteral("frame of %1 bytes exceeds the limit").arg(length);
        return std::nullopt;
    }
    if (pendingBytes() < kHeaderSize + qsizetype(length))
        return std::nullopt;
    Frame frame{type, m_buffer.mid(m_offset + kHeaderSize, length)};
    m_offset += kHeaderSize + length;
    return frame;
}

} // namespace csm
