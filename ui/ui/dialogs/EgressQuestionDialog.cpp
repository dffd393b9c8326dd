#include "ui/dialogs/EgressQuestionDialog.h"

#include "core/VisibleText.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace csm {

EgressQuestionDialog::EgressQuestionDialog(const EgressQuestion& question, QWidget* parent)
    : QDialog(parent)
    , m_question(question)
    , m_countdown(new QLabel(this))
{
    setWindowTitle(tr("Allow a connection? — Code Sandbox"));
    setAttribute(Qt::WA_DeleteOnClose);
    const VisibleText host(question.host);
    auto* what = new QLabel(this);
    what->setTextFormat(Qt::RichText);
    what->setWordWrap(true);
    what->setText(tr("A sandboxed program asks to connect to <b>%1</b>, port <b>%2</b>. It "
                     "waits for your answer.")
                      .arg(host.toHtml())
                      .arg(question.port));
    // Which run: an answer is that run's alone, and two runs may want the same host.
    auto* run = new QLabel(this);
    run->setTextFormat(Qt::RichText);
    run->setWordWrap(true);
    run->setText(tr("Asked by: %1").arg(VisibleText(question.runLabel).toHtml()));
    auto* buttons = new QDialogButtonBox(this);
    QPushButton* once = buttons->addButton(tr("Allow for this &run"), QDialogButtonBox::AcceptRole);
    QPushButton* always = buttons->addButton(tr("&Always allow"), QDialogButtonBox::AcceptRole);
    always->setToolTip(tr("Every run from now on may reach %1:%2 without asking, at public "
                          "addresses only: should the name later lead to a private network or "
                          "this machine, it is still refused. Listed in Settings, where you can "
                          "remove it.")
                           .arg(host.toHtml())
                           .arg(question.port));
    QPushButton* deny = buttons->addButton(tr("&Deny"), QDialogButtonBox::RejectRole);
    // Enter must not open the network to a host the person has not read.
    deny->setDefault(true);
    deny->setFocus();
    connect(once, &QPushButton::clicked, this, [this] { answer(Answer::AllowOnce); });
    connect(always, &QPushButton::clicked, this, [this] { answer(Answer::AllowAlways); });
    connect(deny, &QPushButton::clicked, this, [this] { answer(Answer::Deny); });
    // Closing the window (Esc, the title bar) denies, said once.
    connect(this, &QDialog::rejected, this, [this] { answer(Answer::Deny); });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(what);
    layout->addWidget(run);
    layout->addWidget(m_countdown);
    layout->addWidget(buttons);

    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &EgressQuestionDialog::updateCountdown);
    m_tick.start();
    updateCountdown();
    // Stable names: tests find the widgets by them (findChild).
    what->setObjectName(QStringLiteral("questionLabel"));
    run->setObjectName(QStringLiteral("runLabel"));
    once->setObjectName(QStringLiteral("allowOnceButton"));
    always->setObjectName(QStringLiteral("allowAlwaysButton"));
    deny->setObjectName(QStringLiteral("denyButton"));
}

void EgressQuestionDialog::updateCountdown()
{
    const qint64 left =
        QDateTime::currentDateTimeUtc().msecsTo(m_question.askedAt.addMSecs(m_question.timeoutMs));
    m_countdown->setText(tr("Denied automatically in %1 s if you do not answer.")
                             .arg(std::max<qint64>(0, (left + 999) / 1000)));
}

void EgressQuestionDialog::dismiss()
{
    m_answered = true;
    m_tick.stop();
    close();
}

void EgressQuestionDialog::answer(Answer answer)
{
    if (m_answered)
        return;
    m_answered = true;
    m_tick.stop();
    Q_EMIT answered(m_question, answer);
    close();
}

} // namespace csm
