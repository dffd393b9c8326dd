#pragma once

#include <QJsonObject>
#include <QObject>

namespace csm {

// One running tools/call. Emits finished() exactly once, with the MCP CallToolResult, unless it
// was cancelled, in which case it emits cancelled() once its work is cleaned up.
class ToolCall : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;

    // Stop the work (kill and remove its container); cancelled() follows when that is done.
    virtual void cancel() = 0;
    // What the call is doing now, for a person to read in a progress notification (a run's
    // latest output line); empty when there is nothing to say.
    virtual QString progressMessage() const { return {}; }

Q_SIGNALS:
    void finished(const QJsonObject& callResult);
    void cancelled();
};

} // namespace csm
