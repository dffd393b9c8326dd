#pragma once

#include "approval/ApprovalRequest.h"

#include <QDialog>
#include <QTimer>

class QLabel;
class QPushButton;

namespace csm {

class CodeView;
class VisibleText;

// Asks the user whether one tool call of the app's server may run, showing who asks and the
// code in full, with its invisible and text-direction characters made visible (VisibleText)
// and its long lines wrapped. Answers with decided(); a countdown shows when the call will be
// denied anyway. Not modal: the rest of the app (the Runs page, other requests) stays usable
// meanwhile.
class ApprovalDialog final : public QDialog
{
    Q_OBJECT

public:
    explicit ApprovalDialog(const ApprovalRequest& request, QWidget* parent = nullptr);

    quint64 requestId() const { return m_request.id; }
    // The request is no longer waiting (timed out, withdrawn by the client): closes unanswered.
    void dismiss();

Q_SIGNALS:
    void decided(quint64 requestId, bool approved);

private:
    void highlightMarkers(const VisibleText& code);
    void updateCountdown();
    void answer(bool approved);

    ApprovalRequest m_request;
    CodeView* m_code = nullptr;
    QLabel* m_who = nullptr;
    QLabel* m_hiddenWarning = nullptr;
    QLabel* m_files = nullptr;
    QLabel* m_countdown = nullptr;
    QPushButton* m_approve = nullptr;
    QPushButton* m_deny = nullptr;
    QTimer m_tick;
    bool m_answered = false;
};

} // namespace csm
