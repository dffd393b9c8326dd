#pragma once

#include "approval/ApprovalRequest.h"

#include <QHash>
#include <QObject>

#include <functional>
#include <memory>

class QTimer;

namespace csm {

// Approval mode: while required, every tool call waits for the user to approve or deny it.
// Lives on the server's thread; the desktop app shows requested() in a dialog and calls
// answer() back (through a queued invocation). A request nobody answers in time is denied, so
// an assistant is never left waiting on a person who walked away.
class CallApprovals final : public QObject
{
    Q_OBJECT

public:
    static constexpr int kDefaultTimeoutMs = 60'000;

    // approved, and when not, why (a sentence for the assistant).
    using Decided = std::function<void(bool approved, const QString& reason)>;

    explicit CallApprovals(QObject* parent = nullptr);
    ~CallApprovals() override;

    void setRequired(bool required);
    bool isRequired() const { return m_required; }
    void setTimeoutMs(int timeoutMs) { m_timeoutMs = timeoutMs; }
    int timeoutMs() const { return m_timeoutMs; }

    // Asks the user; `decided` is called exactly once, later, unless withdraw() comes first.
    // Returns the request's id.
    quint64 ask(ApprovalRequest request, Decided decided);
    // The call is gone (cancelled by its client): its request is dropped unanswered.
    void withdraw(quint64 id);
    int pendingCount() const { return static_cast<int>(m_pending.size()); }

public Q_SLOTS:
    void answer(quint64 id, bool approved);

Q_SIGNALS:
    void requested(const csm::ApprovalRequest& request);
    // The request is no longer waiting (answered, timed out, withdrawn, or approval turned off).
    void settled(quint64 id);

private:
    struct Pending
    {
        Decided decided;
        std::unique_ptr<QTimer> timer;
    };

    void decide(quint64 id, bool approved, const QString& reason);

    bool m_required = false;
    int m_timeoutMs = kDefaultTimeoutMs;
    quint64 m_nextId = 1;
    QHash<quint64, std::shared_ptr<Pending>> m_pending;
};

} // namespace csm
