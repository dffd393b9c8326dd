#pragma once

#include "sandbox/CappedBuffer.h"
#include "sandbox/ContainerSpec.h"
#include "sandbox/SandboxSession.h"

#include <QPointer>
#include <QProcess>

namespace csm {

class ContainerRuntime;

// A container created for this call: `ENGINE run --rm -i` with the program on its stdin and the
// launcher's frames on its stdout.
class ColdSession final : public SandboxSession
{
    Q_OBJECT

public:
    ColdSession(const ContainerRuntime& runtime, const ContainerSpec& spec,
                QObject* parent = nullptr);
    ~ColdSession() override;

    void sendProgram(const QByteArray& code) override;
    QByteArray engineDiagnostics() const override { return m_engineStderr.data(); }
    void handOver(ContainerReaper& reaper, bool removeContainer) override;

private:
    QPointer<QProcess> m_client;
    CappedBuffer m_engineStderr;
};

} // namespace csm
