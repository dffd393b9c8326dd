#pragma once

#include <QByteArray>
#include <QString>

namespace csm {

// The head of a request a sandboxed program sends to the egress proxy, read as it arrives:
// `CONNECT host:port` (HTTPS and any other TCP, tunnelled untouched once allowed) or a plain
// HTTP request in absolute form (`GET http://host/path HTTP/1.1`), which the proxy forwards in
// origin form, with the Host of the URL it checked and `Connection: close`. Anything else (non-HTTP
// bytes, a head over 16 KiB, an `https://` URL, bytes sent after a CONNECT before the proxy
// answered it) is refused with a reason, as soon as it can be told.
class ProxyRequestHead final
{
public:
    static constexpr qsizetype kMaxHeadBytes = 16 * 1024;
    static constexpr int kMaxHeaders = 100;

    enum class Status
    {
        Incomplete, // more bytes needed
        Complete,
        Invalid, // error() says why
    };
    enum class Kind
    {
        Connect,
        Forward,
    };

    // Reads the head at the start of `received` (all the connection sent so far).
    static ProxyRequestHead parse(const QByteArray& received);

    Status status() const { return m_status; }
    QString error() const { return m_error; }
    Kind kind() const { return m_kind; }
    // Where the program wants to go: a name or an address literal (IPv6 without brackets).
    QString host() const { return m_host; }
    quint16 port() const { return m_port; }
    // For Forward: the request to send upstream (request line in origin form, the program's
    // headers less the proxy's own, Connection: close), and how many bytes of `received` the
    // head took (the body, if any, follows them).
    QByteArray forwardHead() const { return m_forwardHead; }
    qsizetype headBytes() const { return m_headBytes; }

private:
    static ProxyRequestHead invalid(const QString& why);

    Status m_status = Status::Incomplete;
    QString m_error;
    Kind m_kind = Kind::Connect;
    QString m_host;
    quint16 m_port = 0;
    QByteArray m_forwardHead;
    qsizetype m_headBytes = 0;
};

} // namespace csm
