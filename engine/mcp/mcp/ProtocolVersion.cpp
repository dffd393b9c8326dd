#include "mcp/ProtocolVersion.h"

namespace csm {

QStringList ProtocolVersion::supported()
{
    return {QStringLiteral("2025-11-25"), QStringLiteral("2025-06-18"),
            QStringLiteral("2025-03-26"), QStringLiteral("2024-11-05")};
}

QString ProtocolVersion::latest()
{
    return supported().constFirst();
}

bool ProtocolVersion::isSupported(const QString& version)
{
    return supported().contains(version);
}

QString ProtocolVersion::negotiate(const QString& requested)
{
    return isSupported(requested) ? requested : latest();
}

} // namespace csm
