#pragma once

#include <QByteArray>

namespace csm {

// Keeps the first `cap` bytes appended to it and counts, but drops, the rest: a program that
// prints forever cannot grow the server's memory.
class CappedBuffer final
{
public:
    explicit CappedBuffer(qint64 cap);

    void append(const QByteArray& bytes);
    const QByteArray& data() const { return m_data; }
    bool truncated() const { return m_dropped > 0; }
    // Holds `cap` bytes: whatever comes next is dropped (here, or before it was sent).
    bool isFull() const { return m_data.size() >= m_cap; }
    qint64 droppedBytes() const { return m_dropped; }

private:
    qint64 m_cap;
    qint64 m_dropped = 0;
    QByteArray m_data;
};

} // namespace csm
