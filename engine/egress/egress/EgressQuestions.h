#pragma once

#include "egress/EgressProxy.h"
#include "egress/EgressQuestion.h"

#include <QHash>
#include <QObject>

#include <functional>
#include <memory>

class QTimer;

namespace csm {

// Ask mode's questions: a connection to a host not decided yet waits while the person is asked
// (the desktop app shows asked() and calls answer() back). Connections to the same host and
// port that come while one is asked wait for the same answer. Nobody answering within the
// timeout is a no, so a program is never left hanging on a person who walked away. Lives on
// the server's thread, with the proxies it answers. Questions are per run: two runs that want the
// same host are asked about apart, each answer that run's.
class EgressQuestions final : public QObject
{
    Q_OBJECT

public:
    static constexpr int kDefaultTimeoutMs = 60'000;
    // Questions open at once: a program that makes up host names by the thousand gets its
    // further ones denied, not a thousand dialogs on the person's screen. One run may hold only
    // a few of them, so that it cannot deny every other run's questions.
    static constexpr int kMaxPending = 8;
    static constexpr int kMaxPendingPerRun = 3;

    explicit EgressQuestions(QObject* parent = nullptr);
    ~EgressQuestions() override;

    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }
    // Asks about the question's run, host and port (its id, time and timeout are filled in
    // here); `done` is called once, later, with the answer (at once with no, while kMaxPending
    // others wait, or kMaxPendingPerRun of the same run).
    void ask(EgressQuestion question, std::function<void(bool allow)> done);
    // What a proxy asks through (EgressProxy::setAsker); safe to call after this is gone.
    EgressProxy::Asker asker();
    int pendingCount() const { return static_cast<int>(m_pending.size()); }

public Q_SLOTS:
    void answer(quint64 id, bool allow);

Q_SIGNALS:
    void asked(const csm::EgressQuestion& question);
    // The question no longer waits (answered or timed out).
    void settled(quint64 id);

private:
    struct Pending
    {
        QString key; // run, host:port
        quint64 run = 0;
        std::vector<std::function<void(bool)>> waiting;
        std::unique_ptr<QTimer> timer;
    };

    int m_timeoutMs = kDefaultTimeoutMs;
    quint64 m_nextId = 1;
    QHash<quint64, std::shared_ptr<Pending>> m_pending;
};

} // namespace csm
