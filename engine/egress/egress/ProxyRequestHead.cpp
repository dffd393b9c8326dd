#include "egress/ProxyRequestHead.h"

#include <QUrl>

namespace csm {

namespace {

bool isTokenChar(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           QByteArrayView("!#$%&'*+-.^_`|~").contains(c);
}

// "host:port" or "[v6]:port", the port required (CONNECT's authority form).
bool splitAuthority(const QByteArray& authority, QString* host, quint16* port)
{
    const qsizetype colon = authority.lastIndexOf(':');
    if (colon <= 0)
        return false;
    QByteArray name = authority.left(colon);
    if (name.startsWith('[')) {
        if (!name.endsWith(']'))
            return false;
        name = name.mid(1, name.size() - 2);
    } else if (name.contains(':')) {
        return false; // an IPv6 address needs its brackets
    }
    bool ok = false;
    const uint number = authority.mid(colon + 1).toUInt(&ok);
    if (!ok || number == 0 || number > 65535 || name.isEmpty())
        return false;
    // '*' is no host's (and would make a wildcard of an "always allow"); '%' no literal's.
    for (const char c : name) {
        if (!(isTokenChar(c) || c == ':') || c == '%' || c == '*')
            return false;
    }
    // As written: the records (and the redaction of a secret sent as a host name) see what the
    // program sent; rules and questions compare without case.
    *host = QString::fromLatin1(name);
    *port = quint16(number);
    return true;
}

// The host of an absolute http:// URL as the program wrote it: QUrl lower-cases it (and decodes
// an IDN), and a secret sent as a host name must reach the redaction as it was sent. `normal`,
// QUrl's, when the two differ in more than case.
QString hostAsWritten(const QByteArray& target, const QString& normal)
{
    const qsizetype start = target.indexOf("://") + 3;
    qsizetype end = start;
    while (end < target.size() && target.at(end) != '/' && target.at(end) != '?' &&
           target.at(end) != '#')
        ++end;
    QByteArray authority = target.mid(start, end - start);
    authority = authority.mid(authority.lastIndexOf('@') + 1);
    const qsizetype colon = authority.lastIndexOf(':');
    const QString written = QString::fromLatin1(colon < 0 ? authority : authority.left(colon));
    return written.compare(normal, Qt::CaseInsensitive) == 0 ? written : normal;
}

} // namespace

ProxyRequestHead ProxyRequestHead::invalid(const QString& why)
{
    ProxyRequestHead head;
    head.m_status = Status::Invalid;
    head.m_error = why;
    return head;
}

ProxyRequestHead ProxyRequestHead::parse(const QByteArray& received)
{
    // Non-HTTP bytes are refused at once, not after 16 KiB: a request starts with a method.
    for (qsizetype i = 0; i < received.size(); ++i) {
        const char c = received.at(i);
        if (c == ' ' && i > 0)
            break;
        if (!isTokenChar(c))
            return invalid(QStringLiteral("not an HTTP proxy request"));
    }
    const qsizetype end = received.indexOf("\r\n\r\n");
    if (end < 0) {
        if (received.size() > kMaxHeadBytes)
            return invalid(QStringLiteral("a request head over %1 bytes").arg(kMaxHeadBytes));
        return {};
    }
    if (end + 4 > kMaxHeadBytes)
        return invalid(QStringLiteral("a request head over %1 bytes").arg(kMaxHeadBytes));
    const QList<QByteArray> lines = received.left(end).split('\n');
    if (lines.size() - 1 > kMaxHeaders)
        return invalid(QStringLiteral("more than %1 headers").arg(kMaxHeaders));
    const QList<QByteArray> request = lines.constFirst().trimmed().split(' ');
    // The version goes upstream as it came: only the two there are.
    if (request.size() != 3 || (request.at(2) != "HTTP/1.1" && request.at(2) != "HTTP/1.0"))
        return invalid(QStringLiteral("not an HTTP/1 request line"));
    const QByteArray& method = request.at(0);
    const QByteArray& target = request.at(1);

    ProxyRequestHead head;
    head.m_status = Status::Complete;
    head.m_headBytes = end + 4;
    if (method == "CONNECT") {
        head.m_kind = Kind::Connect;
        if (!splitAuthority(target, &head.m_host, &head.m_port))
            return invalid(QStringLiteral("CONNECT needs host:port"));
        // A client waits for the tunnel before it speaks: bytes now would be a second request
        // slipped in behind the first.
        if (received.size() > head.m_headBytes)
            return invalid(QStringLiteral("data sent before the tunnel was open"));
        return head;
    }
    head.m_kind = Kind::Forward;
    const QUrl url(QString::fromLatin1(target), QUrl::StrictMode);
    if (!url.isValid() || url.scheme() != QLatin1String("http") || url.host().isEmpty()) {
        if (url.scheme() == QLatin1String("https"))
            return invalid(QStringLiteral("an https:// URL is sent with CONNECT"));
        return invalid(QStringLiteral("a proxy request needs an absolute http:// URL"));
    }
    const int port = url.port(80);
    if (port <= 0 || port > 65535)
        return invalid(QStringLiteral("a bad port"));
    head.m_host = hostAsWritten(target, url.host());
    head.m_port = quint16(port);
    QByteArray path =
        url.toEncoded(QUrl::RemoveScheme | QUrl::RemoveAuthority | QUrl::RemoveFragment);
    // Origin form starts with a slash, also for http://host?query.
    if (!path.startsWith('/'))
        path.prepend('/');
    head.m_forwardHead = method + ' ' + path + ' ' + request.at(2) + "\r\n";
    bool transferEncoding = false;
    bool contentLength = false;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).endsWith('\r') ? lines.at(i).chopped(1) : lines.at(i);
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            return invalid(QStringLiteral("a header without a name"));
        // A bare CR (or another control character) in a header could end it early for the host
        // and start a request of the program's own behind the checked one.
        for (const char c : line) {
            if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
                return invalid(QStringLiteral("a header with a control character"));
        }
        const QByteArray name = line.left(colon).toLower();
        for (const char c : name) {
            if (!isTokenChar(c))
                return invalid(QStringLiteral("a header name with a space or a control "
                                              "character"));
        }
        // The proxy's own headers stay here; the connection is this request's alone; the host
        // is the one the policy allowed, whatever a Host header said.
        if (name.startsWith("proxy-") || name == "connection" || name == "keep-alive" ||
            name == "host")
            continue;
        transferEncoding = transferEncoding || name == "transfer-encoding";
        contentLength = contentLength || name == "content-length";
        head.m_forwardHead += line + "\r\n";
    }
    // Two lengths for one body: the host and a server behind it may each read a different one,
    // and take what one of them calls body for a second request, one the policy never saw.
    if (transferEncoding && contentLength)
        return invalid(QStringLiteral("both Transfer-Encoding and Content-Length"));
    const QByteArray hostName =
        head.m_host.contains(u':') ? '[' + head.m_host.toLatin1() + ']' : QUrl::toAce(head.m_host);
    head.m_forwardHead +=
        "Host: " + hostName +
        (head.m_port == 80 ? QByteArray() : ':' + QByteArray::number(head.m_port)) +
        "\r\nConnection: close\r\n\r\n";
    return head;
}

} // namespace csm
