#include "ui/ApprovalPrompter.h"

#include "server/EmbeddedServer.h"
#include "ui/dialogs/ApprovalDialog.h"

#include <QWidget>

#include <algorithm>

namespace csm {

ApprovalPrompter::ApprovalPrompter(EmbeddedServer& server, QWidget* dialogParent)
    : QObject(dialogParent)
    , m_server(server)
    , m_dialogParent(dialogParent)
{
    connect(&server, &EmbeddedServer::approvalRequested, this, &ApprovalPrompter::show);
    connect(&server, &EmbeddedServer::approvalSettled, this, [this](quint64 id) {
        if (const QPointer<ApprovalDialog> dialog = m_dialogs.take(id))
            dialog->dismiss();
    });
}

QList<ApprovalDialog*> ApprovalPrompter::openDialogs() const
{
    QList<ApprovalDialog*> dialogs;
    for (const QPointer<ApprovalDialog>& dialog : m_dialogs) {
        if (dialog)
            dialogs.append(dialog);
    }
    std::sort(dialogs.begin(), dialogs.end(), [](const ApprovalDialog* a, const ApprovalDialog* b) {
        return a->requestId() < b->requestId();
    });
    return dialogs;
}

void ApprovalPrompter::show(const ApprovalRequest& request)
{
    auto* dialog = new ApprovalDialog(request, m_dialogParent);
    m_dialogs.insert(request.id, dialog);
    connect(dialog, &ApprovalDialog::decided, this, [this](quint64 id, bool approved) {
        m_dialogs.remove(id);
        m_server.answerApproval(id, approved);
    });
    dialog->show();
    // The person may be looking at another window: the request must be seen.
    dialog->raise();
    dialog->activateWindow();
    if (m_dialogParent && m_dialogParent->window()->isMinimized())
        m_dialogParent->window()->showNormal();
    Q_EMIT dialogOpened(dialog);
}

} // namespace csm
