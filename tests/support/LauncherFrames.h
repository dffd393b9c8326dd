#pragma once

// Launcher frames as csm-launch writes them, built with the protocol's own header writer, for
// tests that feed the host side canned bytes.
#include "csm/launcher_protocol.h"

#include <QByteArray>

namespace csm::test {

// Only the header of a frame announcing `size` bytes.
inline QByteArray frameHeader(int type, quint32 size)
{
    unsigned char header[CSM_FRAME_HEADER_SIZE];
    csm_frame_header_write(header, type, size);
    return QByteArray(reinterpret_cast<const char*>(header), CSM_FRAME_HEADER_SIZE);
}

inline QByteArray frame(int type, const QByteArray& payload = {})
{
    QByteArray bytes = frameHeader(type, quint32(payload.size()));
    bytes.append(payload);
    return bytes;
}

} // namespace csm::test
