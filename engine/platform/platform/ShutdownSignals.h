#pragma once

#include <QObject>

class QSocketNotifier;

namespace csm {

// Turns the signals that ask a process to end (SIGTERM, SIGINT, SIGHUP) into a Qt signal on the
// event loop, so that shutdown can remove containers instead of dying mid-run. Also ignores
// SIGPIPE: a client that closes our stdout must not kill us before we clean up.
class ShutdownSignals final : public QObject
{
    Q_OBJECT

public:
    explicit ShutdownSignals(QObject* parent = nullptr);
    ~ShutdownSignals() override;

Q_SIGNALS:
    void shutdownRequested(int signalNumber);

private:
    void onReadable();

    QSocketNotifier* m_notifier = nullptr;
};

} // namespace csm
