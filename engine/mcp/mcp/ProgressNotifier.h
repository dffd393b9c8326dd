#pragma once

#include <QElapsedTimer>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QPointer>
#include <QTimer>

namespace csm {

class ToolCall;

// Sends notifications/progress for one tools/call whose request carried a progressToken, while
// the call runs. A client with a request timeout (60 s in the TypeScript SDK) resets it on each
// notification, so a long run survives; the message is what the program printed last, so the
// person watching sees it work.
class ProgressNotifier final : public QObject
{
    Q_OBJECT

public:
    struct Timing
    {
        int checkIntervalMs = 500; // how often the call's message is looked at
        int heartbeatMs = 2'000;   // a notification at least this often, news or not
    };

    // Starts at once; stops when the call finishes or is cancelled, or with stop().
    ProgressNotifier(ToolCall& call, QJsonValue progressToken, Timing timing,
                     QObject* parent = nullptr);

    void stop();

Q_SIGNALS:
    void notification(const QJsonObject& message);

private:
    void check();

    QPointer<ToolCall> m_call;
    QJsonValue m_token;
    Timing m_timing;
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastSentMs = 0;
    double m_lastProgress = 0;
    QString m_lastMessage;
};

} // namespace csm
