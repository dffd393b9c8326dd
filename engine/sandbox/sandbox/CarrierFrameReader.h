#pragma once

#include "csm/egress_carrier_protocol.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <optional>

namespace csm {

// One frame of the egress carrier's stream (csm/egress_carrier_protocol.h).
struct CarrierFrame
{
    char type = 0;
    quint32 id = 0;
    QByteArray payload;
};

// Reads the egress carrier's frames as the bytes arrive, and writes them. Checks each frame's
// shape (a known type, the payload its type allows), so that what is handed on is well formed;
// whether an id or a count makes sense is the carrier's state to judge (EgressCarrier). The
// carrier runs beside the sandboxed program, as the same user: its stream is not trusted.
class CarrierFrameReader final
{
public:
    static QByteArray encode(char type, quint32 id, QByteArrayView payload = {});
    // An acknowledgement of `count` bytes.
    static QByteArray encodeAck(quint32 id, quint32 count);
    // The count an acknowledgement's payload carries.
    static quint32 ackCount(const QByteArray& payload);

    void append(const QByteArray& bytes);
    // The next whole frame, if any. Nothing more comes out once a frame broke the protocol.
    std::optional<CarrierFrame> next();
    bool isBroken() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }

private:
    QByteArray m_buffer;
    qsizetype m_offset = 0;
    QString m_error;
};

} // namespace csm
