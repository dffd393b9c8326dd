#include "sandbox/CappedBuffer.h"

#include <algorithm>

namespace csm {

CappedBuffer::CappedBuffer(qint64 cap)
    : m_cap(std::max<qint64>(cap, 0))
{}

void CappedBuffer::append(const QByteArray& bytes)
{
    const qint64 room = m_cap - m_data.size();
    const qint64 kept = std::clamp<qint64>(room, 0, bytes.size());
    m_data.append(bytes.constData(), kept);
    m_dropped += bytes.size() - kept;
}

} // namespace csm
