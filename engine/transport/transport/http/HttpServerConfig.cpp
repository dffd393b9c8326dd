#include "transport/http/HttpServerConfig.h"

#include <QHostAddress>

namespace csm::http {

QUrl HttpServerConfig::clientUrl() const
{
    QString name = host.trimmed();
    if (name.startsWith(QLatin1Char('[')) && name.endsWith(QLatin1Char(']')))
        name = name.mid(1, name.size() - 2);
    const QHostAddress address(name);
    if (address == QHostAddress::AnyIPv4 || address == QHostAddress::Any)
        name = QStringLiteral("127.0.0.1");
    else if (address == QHostAddress::AnyIPv6)
        name = QStringLiteral("::1");
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(name); // QUrl adds the brackets of an IPv6 address itself
    url.setPort(port);
    url.setPath(path.startsWith(QLatin1Char('/')) ? path : QLatin1Char('/') + path);
    return url;
}

} // namespace csm::http
