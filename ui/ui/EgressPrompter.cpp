#include "ui/EgressPrompter.h"

#include "server/EmbeddedServer.h"

#include <QWidget>

namespace csm {

EgressPrompter::EgressPrompter(EmbeddedServer& server, QWidget* dialogParent)
    : QObject(dialogParent)
    , m_server(server)
    , m_dialogParent(dialogParent)
{
    connect(&server, &EmbeddedServer::egressQuestionAsked, this, &EgressPrompter::show);
    connect(&server, &EmbeddedServer::egressQuestionSettled, this, [this](quint64 id) {
        if (const QPointer<EgressQuestionDialog> dialog = m_dialogs.take(id))
            dialog->dismiss();
    });
}

QList<EgressQuestionDialog*> EgressPrompter::openDialogs() const
{
    QList<EgressQuestionDialog*> dialogs;
    for (const QPointer<EgressQuestionDialog>& dialog : m_dialogs) {
        if (dialog)
            dialogs.append(dialog);
    }
    return dialogs;
}

void EgressPrompter::show(const EgressQuestion& question)
{
    auto* dialog = new EgressQuestionDialog(question, m_dialogParent);
    m_dialogs.insert(question.id, dialog);
    connect(dialog, &EgressQuestionDialog::answered, this, &EgressPrompter::onAnswered);
    dialog->show();
    // The person may be looking at another window: a program waits on the answer.
    dialog->raise();
    dialog->activateWindow();
    Q_EMIT dialogOpened(dialog);
}

void EgressPrompter::onAnswered(const EgressQuestion& question, EgressQuestionDialog::Answer answer)
{
    m_dialogs.remove(question.id);
    m_server.answerEgressQuestion(question.id, answer == EgressQuestionDialog::Answer::AllowOnce);
}

} // namespace csm
