#include "egress/HostGateway.h"

namespace csm {

QString HostGateway::name()
{
    return QStringLiteral("host.containers.internal");
}

QStringList HostGateway::names()
{
    return {name(), QStringLiteral("host.docker.internal")};
}

bool HostGateway::isName(const QString& host)
{
    QString bare = host.toLower();
    if (bare.endsWith(QLatin1Char('.')))
        bare.chop(1);
    return names().contains(bare);
}

QList<QHostAddress> HostGateway::addresses()
{
    return {QHostAddress(QHostAddress::LocalHost), QHostAddress(QHostAddress::LocalHostIPv6)};
}

} // namespace csm
