#pragma once

#include "approval/ApprovalRequest.h"
#include "egress/EgressQuestion.h"
#include "server/ServerStatus.h"

#include <QObject>
#include <QUrl>

namespace csm {

// What the desktop app's embedded server reports, declared once for both of its halves: the
// worker on the server thread emits them, and EmbeddedServer passes them on to the GUI thread.
class EmbeddedServerEvents : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;

Q_SIGNALS:
    void httpListening(const QUrl& url);
    void httpFailed(const QString& error);
    void httpStopped();
    // The stdio client closed stdin: it is gone.
    void stdioClosed();
    void statusChanged(const csm::ServerStatus& status);
    void approvalRequested(const csm::ApprovalRequest& request);
    void approvalSettled(quint64 id);
    // Egress ask mode: a sandbox waits to connect to a host the person has not decided on.
    void egressQuestionAsked(const csm::EgressQuestion& question);
    void egressQuestionSettled(quint64 id);
    // The answer to EmbeddedServer::stopRun(): whether this server is stopping the run `runId`
    // (false: it runs no such run).
    void runStopAnswered(qint64 runId, bool stopping);
    void stopped();
};

} // namespace csm
