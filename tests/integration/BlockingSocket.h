#pragma once

#include <QByteArray>
#include <QtGlobal>

// A plain TCP socket to 127.0.0.1 with send and receive timeouts, for tests that must go on
// sending after the server has answered and closed its side (a QTcpSocket stops writing once it
// sees the server's end), without SIGPIPE, and see every byte the server sent, 1xx answers
// included. Blocking; closed on destruction.
class BlockingSocket final
{
public:
    BlockingSocket() = default;
    ~BlockingSocket();
    BlockingSocket(const BlockingSocket&) = delete;
    BlockingSocket& operator=(const BlockingSocket&) = delete;

    bool connectTo(quint16 port, int timeoutMs = 5'000);
    // Sends all of `bytes`; false once the server has closed or reset the connection, or when
    // nothing could be sent for `timeoutMs`.
    bool send(const QByteArray& bytes, int timeoutMs = 10'000);
    // What arrives until `stop` is found in what was received, the server closes, or
    // `timeoutMs` passes (all of it, kept for the next call too).
    QByteArray receiveUntil(const QByteArray& stop, int timeoutMs);
    const QByteArray& received() const { return m_received; }
    void close();

private:
    int m_fd = -1;
    QByteArray m_received;
};
