#include "tools/RunFileOwners.h"

namespace csm {

QString RunFileOwners::clientOf(const CallContext& context)
{
    return context.transport + QLatin1Char(' ') + context.sessionId;
}

void RunFileOwners::add(const QString& filesKey, const CallContext& maker)
{
    m_owners.insert(filesKey, clientOf(maker));
}

bool RunFileOwners::mayRead(const QString& filesKey, const CallContext& reader) const
{
    const auto owner = m_owners.constFind(filesKey);
    return owner != m_owners.cend() && *owner == clientOf(reader);
}

} // namespace csm
