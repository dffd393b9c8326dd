#include "mcp/ProgressNotifier.h"

#include "mcp/JsonRpc.h"
#include "mcp/ToolCall.h"

#include <cmath>

namespace csm {

ProgressNotifier::ProgressNotifier(ToolCall& call, QJsonValue progressToken, Timing timing,
                                   QObject* parent)
    : QObject(parent)
    , m_call(&call)
    , m_token(std::move(progressToken))
    , m_timing(timing)
{
    connect(&call, &ToolCall::finished, this, &ProgressNotifier::stop);
    connect(&call, &ToolCall::cancelled, this, &ProgressNotifier::stop);
    connect(&m_timer, &QTimer::timeout, this, &ProgressNotifier::check);
    m_clock.start();
    m_timer.start(m_timing.checkIntervalMs);
}

void ProgressNotifier::stop()
{
    m_timer.stop();
    m_call.clear();
}

void ProgressNotifier::check()
{
    if (!m_call)
        return;
    const qint64 elapsedMs = m_clock.elapsed();
    const QString line = m_call->progressMessage();
    const bool news = !line.isEmpty() && line != m_lastMessage;
    if (!news && elapsedMs - m_lastSentMs < m_timing.heartbeatMs)
        return;
    // Progress is the seconds the call has run: it only grows, as MCP requires, and means
    // something to a person. Without output yet, the message says how long it has run.
    double progress = std::round(static_cast<double>(elapsedMs)) / 1000.0;
    if (progress <= m_lastProgress)
        progress = m_lastProgress + 0.001;
    m_lastProgress = progress;
    m_lastSentMs = elapsedMs;
    m_lastMessage = line;
    const QString message =
        line.isEmpty() ? QStringLiteral("Running for %1 s, no output yet").arg(elapsedMs / 1000)
                       : line;
    Q_EMIT notification(jsonrpc::notification(QStringLiteral("notifications/progress"),
                                              {{QStringLiteral("progressToken"), m_token},
                                               {QStringLiteral("progress"), progress},
                                               {QStringLiteral("message"), message}}));
}

} // namespace csm
