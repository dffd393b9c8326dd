#include "approval/CallApprovals.h"

#include "core/Logging.h"
#include "core/LogText.h"

#include <QTimer>

#include <utility>

namespace csm {

CallApprovals::CallApprovals(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<ApprovalRequest>();
}

CallApprovals::~CallApprovals() = default;

void CallApprovals::setRequired(bool required)
{
    m_required = required;
    if (required)
        return;
    // Turning approval off lets the calls that wait go ahead: the user no longer wants to be
    // asked.
    const auto ids = m_pending.keys();
    for (quint64 id : ids)
        decide(id, true, {});
}

quint64 CallApprovals::ask(ApprovalRequest request, Decided decided)
{
    const quint64 id = m_nextId++;
    request.id = id;
    request.askedAt = QDateTime::currentDateTimeUtc();
    request.timeoutMs = m_timeoutMs;
    auto pending = std::make_shared<Pending>();
    pending->decided = std::move(decided);
    pending->timer = std::make_unique<QTimer>();
    pending->timer->setSingleShot(true);
    connect(pending->timer.get(), &QTimer::timeout, this, [this, id] {
        qCInfo(lcServer) << "approval: call" << id << "denied, unanswered after"
                         << m_timeoutMs / 1000 << "s";
        decide(id, false,
               QStringLiteral("The user did not approve this call in Code Sandbox within %1 s, "
                              "so it was not run.")
                   .arg(m_timeoutMs / 1000));
    });
    pending->timer->start(m_timeoutMs);
    m_pending.insert(id, std::move(pending));
    qCInfo(lcServer).noquote() << "approval: call" << id << "of" << request.tool << "from"
                               << LogText::escaped(request.clientName) << "waits for the user";
    Q_EMIT requested(request);
    return id;
}

void CallApprovals::withdraw(quint64 id)
{
    if (m_pending.remove(id))
        Q_EMIT settled(id);
}

void CallApprovals::answer(quint64 id, bool approved)
{
    if (!m_pending.contains(id))
        return; // timed out or withdrawn meanwhile
    qCInfo(lcServer) << "approval: call" << id << (approved ? "approved" : "denied")
                     << "by the user";
    decide(id, approved,
           approved ? QString()
                    : QStringLiteral("The user denied this call in Code Sandbox; the code was "
                                     "not run. Do not retry it unchanged without asking them."));
}

void CallApprovals::decide(quint64 id, bool approved, const QString& reason)
{
    const std::shared_ptr<Pending> pending = m_pending.take(id);
    if (!pending)
        return;
    Q_EMIT settled(id);
    pending->decided(approved, reason);
}

} // namespace csm
