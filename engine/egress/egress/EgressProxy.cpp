#include "egress/EgressProxy.h"

#include "egress/ProxiedConnection.h"

#include <QHostInfo>
#include <QIODevice>

#include <atomic>
#include <utility>

namespace csm {

EgressProxy::EgressProxy(EgressPolicy policy, Limits limits, QObject* parent)
    : QObject(parent)
    , m_policy(std::move(policy))
    , m_limits(limits)
    , m_resolver([](const QString& host, std::function<void(QList<QHostAddress>)> done) {
        QHostInfo::lookupHost(
            host, [done = std::move(done)](const QHostInfo& info) { done(info.addresses()); });
    })
    , m_run([] {
        static std::atomic<quint64> last{0};
        return ++last;
    }())
    , m_budget(limits.maxBytes)
{}

EgressProxy::~EgressProxy()
{
    // The relays' shuttles spend m_budget from their threads: they stop (and are joined) before
    // the members go, not with the other children after them. Nothing is reported: whoever
    // listened is going too.
    qDeleteAll(findChildren<ProxiedConnection*>(Qt::FindDirectChildrenOnly));
}

void EgressProxy::serve(QIODevice* stream)
{
    ++m_open;
    ++m_total;
    auto* relay = new ProxiedConnection(*this, stream);
    if (m_open > m_limits.maxOpenConnections) {
        relay->refuse(429, QStringLiteral("more than %1 connections open at once")
                               .arg(m_limits.maxOpenConnections));
    } else if (m_total > m_limits.maxConnections) {
        relay->refuse(
            429,
            QStringLiteral("more than %1 connections in this run").arg(m_limits.maxConnections));
    } else {
        relay->start();
    }
}

void EgressProxy::closeAll(const QString& reason)
{
    for (ProxiedConnection* relay : findChildren<ProxiedConnection*>(Qt::FindDirectChildrenOnly))
        relay->end(reason);
}

} // namespace csm
