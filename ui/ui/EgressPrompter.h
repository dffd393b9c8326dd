#pragma once

#include "egress/EgressQuestion.h"
#include "ui/dialogs/EgressQuestionDialog.h"

#include <QHash>
#include <QObject>
#include <QPointer>

class QWidget;

namespace csm {

class EmbeddedServer;

// Egress ask mode in the app: one EgressQuestionDialog per host a sandbox waits to reach, each
// answer sent back to the server. A dialog whose question stops waiting (timed out) closes.
class EgressPrompter final : public QObject
{
    Q_OBJECT

public:
    EgressPrompter(EmbeddedServer& server, QWidget* dialogParent);

    QList<EgressQuestionDialog*> openDialogs() const;

Q_SIGNALS:
    void dialogOpened(csm::EgressQuestionDialog* dialog);

private:
    void show(const EgressQuestion& question);
    void onAnswered(const EgressQuestion& question, EgressQuestionDialog::Answer answer);

    EmbeddedServer& m_server;
    QWidget* m_dialogParent;
    QHash<quint64, QPointer<EgressQuestionDialog>> m_dialogs;
};

} // namespace csm
