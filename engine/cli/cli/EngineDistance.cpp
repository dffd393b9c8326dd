#include "cli/EngineDistance.h"

#include "runtime/ContainerRuntime.h"

#include <QProcess>

#include <algorithm>

namespace csm {

namespace {
qint64 median(QList<qint64> values)
{
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}
} // namespace

EngineDistance::EngineDistance(std::shared_ptr<const ContainerRuntime> runtime, QObject* parent)
    : QObject(parent)
    , m_runtime(std::move(runtime))
{}

void EngineDistance::start()
{
    m_client.clear();
    m_call.clear();
    next();
}

void EngineDistance::next()
{
    if (m_call.size() == kSamples) {
        m_clientMs = median(m_client);
        m_callMs = median(m_call);
        Q_EMIT finished({});
        return;
    }
    // Alternately, so that a machine busy for a moment weighs on both alike.
    const bool client = m_client.size() == m_call.size();
    QProcess* process = m_runtime->newProcess(
        client ? QStringList{QStringLiteral("--version")} : m_runtime->roundTripArguments(), this);
    connect(process, &QProcess::finished, this,
            [this, process, client](int exitCode, QProcess::ExitStatus status) {
                const qint64 ms = m_timer.elapsed();
                process->deleteLater();
                if (status != QProcess::NormalExit || exitCode != 0) {
                    Q_EMIT finished(QString::fromUtf8(process->readAllStandardError())
                                        .trimmed()
                                        .section(u'\n', 0, 0));
                    return;
                }
                (client ? m_client : m_call).append(ms);
                next();
            });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            process->deleteLater();
            Q_EMIT finished(process->errorString());
        }
    });
    m_timer.start();
    process->start();
}

} // namespace csm
