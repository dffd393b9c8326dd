#include "egress/HostPattern.h"

#include <QRegularExpression>

namespace csm {

namespace {

// A name as DNS has them (letters, digits, hyphens, underscores seen in the wild), in labels.
bool isHostName(const QString& name)
{
    static const QRegularExpression label(
        QStringLiteral("^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\\.)*"
                       "[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$"));
    return name.size() <= 253 && label.match(name).hasMatch();
}

QString normalName(QString name)
{
    name = name.toLower();
    if (name.endsWith(u'.'))
        name.chop(1);
    return name;
}

// An address literal, with or without brackets; IPv4 carried in IPv6 comes out as IPv4.
std::optional<QHostAddress> addressOf(QString text)
{
    if (text.startsWith(u'[') && text.endsWith(u']'))
        text = text.mid(1, text.size() - 2);
    QHostAddress address;
    if (!address.setAddress(text))
        return std::nullopt;
    bool isIpv4 = false;
    const quint32 ipv4 = address.toIPv4Address(&isIpv4);
    if (isIpv4)
        return QHostAddress(ipv4);
    address.setScopeId({});
    return address;
}

} // namespace

Expected<HostPattern> HostPattern::parse(const QString& input)
{
    const QString text = input.trimmed();
    if (text.isEmpty())
        return Unexpected(QStringLiteral("an empty host"));
    QString host = text;
    QString port;
    if (text.startsWith(u'[')) {
        const qsizetype close = text.indexOf(u']');
        if (close < 0)
            return Unexpected(QStringLiteral("\"%1\": a [ without its ]").arg(text));
        host = text.left(close + 1);
        const QString rest = text.mid(close + 1);
        if (!rest.isEmpty()) {
            if (!rest.startsWith(u':'))
                return Unexpected(QStringLiteral("\"%1\": what follows ] is not :PORT").arg(text));
            port = rest.mid(1);
        }
    } else if (text.count(u':') == 1) {
        host = text.section(u':', 0, 0);
        port = text.section(u':', 1);
    } // more than one ':' and no brackets: an IPv6 address without a port

    HostPattern pattern;
    if (!port.isNull()) {
        bool ok = false;
        const uint number = port.toUInt(&ok);
        if (!ok || number == 0 || number > 65535)
            return Unexpected(QStringLiteral("\"%1\": the port must be 1 to 65535").arg(text));
        pattern.m_port = quint16(number);
    }
    if (const auto address = addressOf(host)) {
        pattern.m_address = address;
        return pattern;
    }
    QString name = normalName(host);
    if (name.startsWith(QLatin1String("*."))) {
        pattern.m_subdomains = true;
        name = name.mid(2);
    }
    if (!isHostName(name)) {
        return Unexpected(QStringLiteral("\"%1\" is not a host name, *.name or an address (a "
                                         "wildcard only as the first label)")
                              .arg(text));
    }
    pattern.m_name = name;
    return pattern;
}

bool HostPattern::matches(const QString& host, quint16 port) const
{
    if (m_port && *m_port != port)
        return false;
    if (m_address) {
        const auto address = addressOf(host);
        return address && *address == *m_address;
    }
    const QString name = normalName(host);
    if (m_subdomains)
        return name.endsWith(u'.' + m_name);
    return name == m_name;
}

QString HostPattern::toString() const
{
    QString host;
    if (m_address) {
        host = m_address->protocol() == QAbstractSocket::IPv6Protocol
                   ? u'[' + m_address->toString() + u']'
                   : m_address->toString();
    } else {
        host = m_subdomains ? QStringLiteral("*.") + m_name : m_name;
    }
    return m_port ? QStringLiteral("%1:%2").arg(host).arg(*m_port) : host;
}

} // namespace csm
