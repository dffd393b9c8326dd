#pragma once

#include <QByteArray>
#include <QObject>

#include <memory>

class QThread;

namespace csm {

class ByteBudget;

// Carries an open proxy connection's bytes both ways between the program's stream and the
// host's socket, on a thread of its own and inside the kernel (splice through pipes): no copy
// passes through the server, and the server's event loop is not woken per chunk. That is what
// brings a download through the proxy near the engine's bridge. Where the platform cannot
// (available() is false), the caller relays with Qt's sockets instead.
//
// The program may half-close (it has sent its request): the host is told, and its answer still
// comes. The host's end ends the connection once what it sent has been passed on.
class ByteShuttle final : public QObject
{
    Q_OBJECT

public:
    enum class End
    {
        ProgramClosed,
        HostClosed,
        OverBudget,
        Cut
    };
    struct Result
    {
        End end = End::Cut;
        qint64 bytesSent = 0;     // program to host
        qint64 bytesReceived = 0; // host to program
    };

    static bool available();

    // Takes over the two sockets: their descriptors are duplicated here, so the caller closes
    // its own (Qt's) right after. `toProgram` (the proxy's answer, not counted) and `toHost` go
    // first. Nullptr when a descriptor cannot be taken.
    static std::unique_ptr<ByteShuttle> adopt(qintptr program, qintptr host, QByteArray toProgram,
                                              QByteArray toHost, ByteBudget& budget);
    ~ByteShuttle() override;

    void start();
    // Cuts the connection (if it still runs) and waits for the thread; the result is final.
    Result stop();

Q_SIGNALS:
    // The connection ended by itself; stop() gives its result.
    void ended();

private:
    explicit ByteShuttle(ByteBudget& budget);
    void run();

    // Direction 0 carries the program's bytes to the host, direction 1 the host's to the
    // program; m_fd[d] is read for direction d (the program's descriptor, the host's).
    int m_fd[2] = {-1, -1};
    int m_wake[2] = {-1, -1}; // a pipe: stop() writes to it
    QByteArray m_first[2];    // sent before the carried bytes, each way
    ByteBudget& m_budget;
    Result m_result;
    QThread* m_thread = nullptr;
};

} // namespace csm
