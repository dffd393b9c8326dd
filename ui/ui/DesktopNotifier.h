#pragma once

#include <QObject>
#include <QSet>
#include <QTimer>

namespace csm {

class HistoryStore;
class TrayIcon;
struct ApprovalRequest;
struct RunRecord;

// What the app tells the desktop, through the tray icon's notifications: a call waits for the
// user's approval, and (when asked for) a call failed or was killed for memory. Failures are
// those of every server whose runs the history holds, read from its changes: only while that
// notification is on, and only of runs that end after it was turned on.
class DesktopNotifier final : public QObject
{
    Q_OBJECT

public:
    // How often the history is asked what changed, while failures are notified.
    static constexpr int kFailureCheckMs = 1000;
    // More failures than this at once make one notification that counts them.
    static constexpr int kMaxFailureMessages = 3;

    // `tray` and `history` (may be null: no failure notifications) must outlive the notifier.
    DesktopNotifier(TrayIcon& tray, HistoryStore* history, QObject* parent = nullptr);

    // DesktopSettings::notifyApprovals / notifyFailures.
    void setNotifyApprovals(bool on) { m_approvals = on; }
    void setNotifyFailures(bool on);

    void approvalRequested(const csm::ApprovalRequest& request);

private:
    void checkFailures();
    void notifyFailure(const RunRecord& run);

    TrayIcon& m_tray;
    HistoryStore* m_history;
    bool m_approvals = true;
    QTimer m_failureCheck;
    qint64 m_changeSeq = 0;
    // Runs whose failure was told (a run may be changed again after its end).
    QSet<qint64> m_told;
};

} // namespace csm
