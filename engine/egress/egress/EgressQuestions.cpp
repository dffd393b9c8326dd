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

void EgressQuestions::ask(EgressQuestion question, std::function<void(bool)> done)
{
    const QString key = QStringLiteral("%1 %2:%3")
                            .arg(question.run)
                            .arg(question.host.toLower())
                            .arg(question.port);
    for (const auto& pending : std::as_const(m_pending)) {
        if (pending->key == key) {
            pending->waiting.push_back(std::move(done));
            return;
        }
    }
    qsizetype ofRun = 0;
    for (const auto& pending : std::as_const(m_pending))
        ofRun += pending->run == question.run ? 1 : 0;
    if (m_pending.size() >= kMaxPending || ofRun >= kMaxPendingPerRun) {
        done(false);
        return;
    }
    const quint64 id = m_nextId++;
    auto pending = std::make_shared<Pending>();
    pending->key = key;
    pending->run = question.run;
    pending->waiting.push_back(std::move(done));
    pending->timer = std::make_unique<QTimer>();
    pending->timer->setSingleShot(true);
    connect(pending->timer.get(), &QTimer::timeout, this, [this, id] { answer(id, false); });
    pending->timer->start(m_timeoutMs);
    m_pending.insert(id, std::move(pending));
    question.id = id;
    question.askedAt = QDateTime::currentDateTimeUtc();
    question.timeoutMs = m_timeoutMs;
    Q_EMIT asked(question);
}

EgressProxy::Asker EgressQuestions::asker()
{
    return [self = QPointer<EgressQuestions>(this)](const EgressQuestion& question,
                                                    std::function<void(bool)> done) {
        if (self)
            self->ask(question, std::move(done));
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
