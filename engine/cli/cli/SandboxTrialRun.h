#pragma once

#include "egress/EgressSettings.h"
#include "runtime/EngineLocationChoice.h"
#include "runtime/Language.h"
#include "runtime/SandboxPolicy.h"

#include <QObject>
#include <QString>

#include <memory>

namespace csm {

class SandboxRunner;
struct ExecutionResult;

// One real sandbox, started as a server starts one (the engine, policy, launcher and seccomp
// profile it would use; no pool), running a short probe: whether sandboxes work here at all, and
// whether their limits and network are what the settings say. What `doctor` reports as
// "sandbox".
class SandboxTrialRun final : public QObject
{
    Q_OBJECT

public:
    struct Report
    {
        bool ok = false;
        QString detail; // what was seen, or the problem
        QString fix;    // for a problem: what to do
    };

    // The longest the probe may take, container start included.
    static constexpr int kTimeoutMs = 30'000;

    explicit SandboxTrialRun(QObject* parent = nullptr);
    ~SandboxTrialRun() override;

    // `engine`: as RuntimeFactory takes it (empty: auto). finished() follows once, after the
    // container is gone.
    void start(const QString& engine, const QString& engineHost,
               EngineLocationChoice engineLocation, const SandboxPolicy& policy,
               const EgressSettings& egress, const QString& pythonImage);

    // What `result` (of the probe program) says about sandboxes under `policy`.
    static Report interpret(const ExecutionResult& result, const SandboxPolicy& policy,
                            const EgressSettings& egress);

Q_SIGNALS:
    void finished(const csm::SandboxTrialRun::Report& report);

private:
    std::unique_ptr<SandboxRunner> m_runner;
};

} // namespace csm
