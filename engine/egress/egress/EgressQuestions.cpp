#include "egress/EgressQuestions.h"

#include <QPointer>
#include <QTimer>

namespace csm {

EgressQuestions::EgressQuestions(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<EgressQuestion>();
}

EgressQuestions::~EgressQuestions() = default;

void EgressQuestions::ask(const QString& host, quint16 port, std::function<void(bool)> done)
{
    const QString key = QStringLiteral("%1:%2").arg(host.toLower()).arg(port);
    for (const auto& pending : std::as_const(m_pending)) {
        if (pending->key == key) {
            pending->waiting.push_back(std::move(done));
            return;
        }
    }
    if (m_pending.size() >= kMaxPending) {
        done(false);
        return;
    }
    const quint64 id = m_nextId++;
    auto pending = std::make_shared<Pending>();
    pending->key = key;
    pending->waiting.push_back(std::move(done));
    pending->timer = std::make_unique<QTimer>();
    pending->timer->setSingleShot(true);
    connect(pending->timer.get(), &QTimer::timeout, this, [this, id] { answer(id, false); });
    pending->timer->start(m_timeoutMs);
    m_pending.insert(id, std::move(pending));
    Q_EMIT asked({id, host, port, QDateTime::currentDateTimeUtc(), m_timeoutMs});
}

EgressProxy::Asker EgressQuestions::asker()
{
    return [self = QPointer<EgressQuestions>(this)](const QString& host, quint16 port,
                                                    std::function<void(bool)> done) {
        if (self)
            self->ask(host, port, std::move(done));
        else
            done(false);
    };
}

void EgressQuestions::answer(quint64 id, bool allow)
{
    const std::shared_ptr<Pending> pending = m_pending.take(id);
    if (!pending)
        return;
    Q_EMIT settled(id);
    for (const auto& done : pending->waiting)
        done(allow);
}

} // namespace csm
