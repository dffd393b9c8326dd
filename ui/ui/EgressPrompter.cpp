#include "ui/EgressPrompter.h"

#include "server/EmbeddedServer.h"
#include "server/ServerSettings.h"

#include <QDebug>
#include <QWidget>

namespace csm {

EgressPrompter::EgressPrompter(EmbeddedServer& server, QString dataDir, QWidget* dialogParent)
    : QObject(dialogParent)
    , m_server(server)
    , m_dataDir(std::move(dataDir))
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
    if (answer == EgressQuestionDialog::Answer::AllowAlways)
        allowAlways(question);
    m_server.answerEgressQuestion(question.id, answer != EgressQuestionDialog::Answer::Deny);
}

void EgressPrompter::allowAlways(const EgressQuestion& question)
{
    const QString text = QStringLiteral("%1:%2")
                             .arg(question.host.contains(QLatin1Char(':'))
                                      ? QStringLiteral("[%1]").arg(question.host)
                                      : question.host)
                             .arg(question.port);
    auto pattern = HostPattern::parse(text);
    if (!pattern) {
        qWarning().noquote() << "cannot allow" << text << "always:" << pattern.error();
        return;
    }
    ServerSettings settings = ServerSettings::load(m_dataDir);
    if (!settings.egress.alwaysAllowed.contains(*pattern))
        settings.egress.alwaysAllowed.append(*pattern);
    if (const auto saved = settings.save(m_dataDir); !saved)
        qWarning().noquote() << "cannot save the always-allowed hosts:" << saved.error();
}

} // namespace csm
