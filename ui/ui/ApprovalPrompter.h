#pragma once

#include "approval/ApprovalRequest.h"

#include <QHash>
#include <QObject>
#include <QPointer>

class QWidget;

namespace csm {

class ApprovalDialog;
class EmbeddedServer;

// Shows one ApprovalDialog per call that waits for the user's approval, and sends each answer
// back to the server. A dialog whose request stops waiting (timeout, cancelled call) closes.
class ApprovalPrompter final : public QObject
{
    Q_OBJECT

public:
    ApprovalPrompter(EmbeddedServer& server, QWidget* dialogParent);

    // The dialogs open now, oldest first.
    QList<ApprovalDialog*> openDialogs() const;

Q_SIGNALS:
    void dialogOpened(csm::ApprovalDialog* dialog);

private:
    void show(const ApprovalRequest& request);

    EmbeddedServer& m_server;
    QWidget* m_dialogParent;
    QHash<quint64, QPointer<ApprovalDialog>> m_dialogs;
};

} // namespace csm
