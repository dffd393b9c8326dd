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
// answer sent back to the server. "Always allow" also adds HOST:PORT to the always-allowed hosts
// in the settings file (every server of the user reads it again), so no run asks about it again.
// A dialog whose question stops waiting (timed out) closes.
class EgressPrompter final : public QObject
{
    Q_OBJECT

public:
    EgressPrompter(EmbeddedServer& server, QString dataDir, QWidget* dialogParent);

    QList<EgressQuestionDialog*> openDialogs() const;

Q_SIGNALS:
    void dialogOpened(csm::EgressQuestionDialog* dialog);

private:
    void show(const EgressQuestion& question);
    void onAnswered(const EgressQuestion& question, EgressQuestionDialog::Answer answer);
    // Adds HOST:PORT to the settings file's always-allowed hosts; a warning if it cannot.
    void allowAlways(const EgressQuestion& question);

    EmbeddedServer& m_server;
    QString m_dataDir;
    QWidget* m_dialogParent;
    QHash<quint64, QPointer<EgressQuestionDialog>> m_dialogs;
};

} // namespace csm
