#pragma once

#include "egress/EgressQuestion.h"

#include <QDialog>
#include <QTimer>

class QLabel;
class QPushButton;

namespace csm {

// Egress ask mode: a sandbox waits to connect to a host, and the person decides: allow for this
// run, always (the host joins the settings' "always allowed" list, which reaches public addresses
// only: the program chose the name and may point it elsewhere later), or deny for this run; a
// countdown shows when it will be denied anyway. The host is the program's own words: shown as
// text, with invisible characters made visible. Not modal.
class EgressQuestionDialog final : public QDialog
{
    Q_OBJECT

public:
    enum class Answer
    {
        AllowOnce,
        AllowAlways,
        Deny,
    };

    explicit EgressQuestionDialog(const EgressQuestion& question, QWidget* parent = nullptr);

    quint64 questionId() const { return m_question.id; }
    const EgressQuestion& question() const { return m_question; }
    // The question no longer waits (timed out): closes unanswered.
    void dismiss();

Q_SIGNALS:
    void answered(const csm::EgressQuestion& question, csm::EgressQuestionDialog::Answer answer);

private:
    void updateCountdown();
    void answer(Answer answer);

    EgressQuestion m_question;
    QLabel* m_countdown = nullptr;
    QTimer m_tick;
    bool m_answered = false;
};

} // namespace csm
