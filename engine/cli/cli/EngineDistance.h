#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QStringList>

#include <memory>

namespace csm {

class ContainerRuntime;

// How far away an engine is: the time of a call that reaches it (an empty listing) beside that
// of the CLI alone (`--version`, answered without it),
// each the median of a few. Their difference is the round trip, transport set-up included (an
// ssh:// engine's CLI connects anew for every call, as every sandbox's start does).
class EngineDistance final : public QObject
{
    Q_OBJECT

public:
    static constexpr int kSamples = 3;

    explicit EngineDistance(std::shared_ptr<const ContainerRuntime> runtime,
                            QObject* parent = nullptr);

    void start();

    qint64 callMs() const { return m_callMs; }
    qint64 clientMs() const { return m_clientMs; }
    qint64 roundTripMs() const { return std::max<qint64>(0, m_callMs - m_clientMs); }

Q_SIGNALS:
    // Measured, or `error` says why not.
    void finished(const QString& error);

private:
    void next();

    std::shared_ptr<const ContainerRuntime> m_runtime;
    QList<qint64> m_client;
    QList<qint64> m_call;
    QElapsedTimer m_timer;
    qint64 m_callMs = 0;
    qint64 m_clientMs = 0;
};

} // namespace csm
