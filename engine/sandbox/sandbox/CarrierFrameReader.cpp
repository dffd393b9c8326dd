#include "sandbox/CarrierFrameReader.h"

#include <QtEndian>

namespace csm {

namespace {
// What a frame of `type` may carry: -1 for a type the protocol does not have.
qsizetype largestPayload(char type)
{
    switch (type) {
    case CSM_CARRIER_HELLO:
    case CSM_CARRIER_OPEN:
    case CSM_CARRIER_END:
    case CSM_CARRIER_CLOSE:
        return 0;
    case CSM_CARRIER_DATA:
        return CSM_CARRIER_MAX_DATA;
    case CSM_CARRIER_ACK:
        return CSM_CARRIER_ACK_SIZE;
    default:
        return -1;
    }
}
} // namespace

QByteArray CarrierFrameReader::encode(char type, quint32 id, QByteArrayView payload)
{
    QByteArray frame(CSM_CARRIER_HEADER_SIZE, Qt::Uninitialized);
    frame[0] = type;
    qToBigEndian(id, frame.data() + 1);
    qToBigEndian(quint32(payload.size()), frame.data() + 5);
    frame.append(payload);
    return frame;
}

QByteArray CarrierFrameReader::encodeAck(quint32 id, quint32 count)
{
    char payload[CSM_CARRIER_ACK_SIZE];
    qToBigEndian(count, payload);
    return encode(CSM_CARRIER_ACK, id, QByteArrayView(payload, sizeof payload));
}

quint32 CarrierFrameReader::ackCount(const QByteArray& payload)
{
    return payload.size() == CSM_CARRIER_ACK_SIZE ? qFromBigEndian<quint32>(payload.constData())
                                                  : 0;
}

void CarrierFrameReader::append(const QByteArray& bytes)
{
    if (isBroken())
        return;
    // What was read already goes first, so the buffer holds at most a frame and what came after.
    if (m_offset > 0) {
        m_buffer.remove(0, m_offset);
        m_offset = 0;
    }
    m_buffer.append(bytes);
}

std::optional<CarrierFrame> CarrierFrameReader::next()
{
    if (isBroken() || m_buffer.size() - m_offset < CSM_CARRIER_HEADER_SIZE)
        return std::nullopt;
    const char* header = m_buffer.constData() + m_offset;
    const char type = header[0];
    const quint32 length = qFromBigEndian<quint32>(header + 5);
    const qsizetype largest = largestPayload(type);
    if (largest < 0) {
        m_error = QStringLiteral("unknown frame type %1").arg(int(uchar(type)));
        return std::nullopt;
    }
    const bool fits = type == CSM_CARRIER_DATA ? length >= 1 && length <= quint32(largest)
                                               : length == quint32(largest);
    if (!fits) {
        m_error =
            QStringLiteral("a '%1' frame of %2 bytes").arg(QChar::fromLatin1(type)).arg(length);
        return std::nullopt;
    }
    if (m_buffer.size() - m_offset < CSM_CARRIER_HEADER_SIZE + qsizetype(length))
        return std::nullopt;
    CarrierFrame frame;
    frame.type = type;
    frame.id = qFromBigEndian<quint32>(header + 1);
    frame.payload = m_buffer.mid(m_offset + CSM_CARRIER_HEADER_SIZE, length);
    m_offset += CSM_CARRIER_HEADER_SIZE + length;
    return frame;
}

} // namespace csm
