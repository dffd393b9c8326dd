#pragma once

#include "mcp/ToolCall.h"

namespace csm {

// A call whose result is known when it starts (a tool that only reads or changes the server's
// state): finished() follows from the event loop, after the dispatcher has connected to it.
class ImmediateToolCall final : public ToolCall
{
    Q_OBJECT

public:
    ImmediateToolCall(QJsonObject result, QObject* parent);

    void cancel() override;

private:
    bool m_cancelled = false;
};

} // namespace csm
