#pragma once

#include "runtime/ContainerSpec.h"
#include "sandbox/CappedBuffer.h"
#include "sandbox/ContainerChannel.h"

#include <QPointer>
#include <QProcess>

namespace csm {

class ContainerRuntime;

// A container created for this call: `ENGINE run --rm -i` with the program on its stdin and the
// launcher's frames on its stdout. An interpreter session's container (spec.session) keeps its
// stdin open: each request is one more message to its launcher.
class ColdContainerChannel final : public ContainerChannel
{
    Q_OBJECT

public:
    ColdContainerChannel(const ContainerRuntime& runtime, const ContainerSpec& spec,
                         std::shared_ptr<const SandboxSecrets> secrets, QObject* parent = nullptr);
    ~ColdContainerChannel() override;

    void sendRequest(const QByteArray& request) override;
    QByteArray engineDiagnostics() const override { return m_engineStderr.data(); }
    void handOver(ContainerReaper& reaper, bool removeContainer) override;

private:
    QPointer<QProcess> m_client;
    CappedBuffer m_engineStderr;
    const bool m_persistent;
    // What was sent before the engine client started.
    QByteArray m_pending;
};

} // namespace csm
