#include "tools/RunFileOwners.h"

namespace csm {

QString RunFileOwners::clientOf(const CallContext& context)
{
    return context.transport + QLatin1Char(' ') + context.sessionId;
}

void RunFileOwners::add(const QString& filesKey, const CallContext& maker)
{
    if (!m_owners.contains(filesKey))
        m_order.enqueue(filesKey);
    m_owners.insert(filesKey, clientOf(maker));
    while (m_order.size() > kMaxRuns)
        m_owners.remove(m_order.dequeue());
}

bool RunFileOwners::mayRead(const QString& filesKey, const CallContext& reader) const
{
    const auto owner = m_owners.constFind(filesKey);
    return owner != m_owners.cend() && *owner == clientOf(reader);
}

} // namespace csm
