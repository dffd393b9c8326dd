#include "mcp/ImmediateToolCall.h"

#include <QMetaObject>

namespace csm {

ImmediateToolCall::ImmediateToolCall(QJsonObject result, QObject* parent)
    : ToolCall(parent)
{
    QMetaObject::invokeMethod(
        this,
        [this, result = std::move(result)] {
            if (!m_cancelled)
                Q_EMIT finished(result);
        },
        Qt::QueuedConnection);
}

void ImmediateToolCall::cancel()
{
    if (m_cancelled)
        return;
    m_cancelled = true;
    QMetaObject::invokeMethod(this, &ImmediateToolCall::cancelled, Qt::QueuedConnection);
}

} // namespace csm
