#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QObject>

class QSocketNotifier;

namespace csm {

// MCP's stdio framing: one compact JSON message per line on stdin and stdout. stdout carries
// protocol messages only; everything else goes to stderr.
class StdioTransport final : public QObject
{
    Q_OBJECT

public:
    // Lines longer than this are refused (and skipped) instead of buffered without bound.
    static constexpr qsizetype kMaxMessageBytes = 64 * 1024 * 1024;

    explicit StdioTransport(QObject* parent = nullptr);
    ~StdioTransport() override;

    void start();
    void send(const QJsonObject& message);

Q_SIGNALS:
    void messageReceived(const QByteArray& message);
    // A line over kMaxMessageBytes was dropped.
    void messageTooLarge();
    // stdin reached end of file: the client is gone.
    void closed();

private:
    void readAvailable();
    void processBuffer();

    QSocketNotifier* m_notifier = nullptr;
    QByteArray m_buffer;
    bool m_discardingOversizedLine = false;
};

} // namespace csm
