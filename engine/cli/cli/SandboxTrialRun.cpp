#include "cli/SandboxTrialRun.h"

#include "core/ByteSize.h"
#include "runtime/ContainerRuntime.h"
#include "runtime/EngineLocationFinder.h"
#include "runtime/RuntimeFactory.h"
#include "sandbox/ContainerReaper.h"
#include "sandbox/ExecutionResult.h"
#include "sandbox/RunRequest.h"
#include "sandbox/SandboxFilesLocator.h"
#include "sandbox/SandboxRun.h"
#include "sandbox/SandboxRunner.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace csm {

namespace {
// The network interfaces the sandbox has, and in proxy mode the egress proxy's answer to a
// CONNECT to the metadata address (refused: the way through the launcher's relay to this
// server's proxy works, and nothing leaves the machine), and the kernel it sees, as one JSON
// line.
constexpr char kProbe[] = "import json, os, platform, socket\n"
                          "r = {'interfaces': sorted(os.listdir('/sys/class/net')),\n"
                          "     'kernel': platform.release()}\n"
                          "if os.environ.get('HTTP_PROXY'):\n"
                          "    try:\n"
                          "        s = socket.create_connection(('127.0.0.1', 3128), timeout=5)\n"
                          "        s.sendall(b'CONNECT 169.254.169.254:80 HTTP/1.1\\r\\n\\r\\n')\n"
                          "        s.settimeout(5)\n"
                          "        r['proxy'] = s.recv(200).decode('latin1').split('\\r\\n')[0]\n"
                          "    except OSError as e:\n"
                          "        r['proxy'] = 'no answer: %s' % e\n"
                          "print(json.dumps(r))\n";

// The kernel release gVisor's kernel reports, whatever the host runs.
constexpr char kGvisorKernelRelease[] = "4.4.0";

QString limitsText(const SandboxPolicy& policy)
{
    return QStringLiteral("%1 of memory, %2 processes, %3 CPU")
        .arg(ByteSize::format(policy.memoryBytes))
        .arg(policy.pidsLimit)
        .arg(policy.cpus);
}
} // namespace

SandboxTrialRun::SandboxTrialRun(QObject* parent)
    : QObject(parent)
{}

SandboxTrialRun::~SandboxTrialRun()
{
    // Its run uses the runner (queue, reaper) down to its destructor: it goes first. A run cut
    // short here hands its container to the reaper, which removes it as the runner goes.
    qDeleteAll(findChildren<SandboxRun*>(Qt::FindDirectChildrenOnly));
    m_runner.reset();
}

void SandboxTrialRun::start(const QString& engine, const QString& engineHost,
                            EngineLocationChoice engineLocation, const SandboxPolicy& policy,
                            const EgressSettings& egress, const QString& pythonImage)
{
    std::unique_ptr<ContainerRuntime> runtime = RuntimeFactory::create(engine, engineHost);
    const SandboxFiles files = SandboxFilesLocator::find();
    if (runtime)
        EngineLocationFinder().settle(*runtime, engineLocation, pythonImage, files.launcher);
    m_runner = std::make_unique<SandboxRunner>(std::move(runtime), policy, files);
    m_runner->setEgress(egress);
    RunRequest request;
    request.language = Language::Python;
    request.image = pythonImage;
    request.code = kProbe;
    request.timeoutMs = kTimeoutMs;
    SandboxRun* run = m_runner->start(request, this);
    connect(run, &SandboxRun::finished, this,
            [this, run, policy, egress](const ExecutionResult& result) {
                const Report report = interpret(result, policy, egress);
                run->deleteLater();
                // Reported once the container is gone: doctor leaves nothing behind.
                connect(&m_runner->reaper(), &ContainerReaper::drained, this,
                        [this, report] { Q_EMIT finished(report); });
                m_runner->shutdown();
            });
}

SandboxTrialRun::Report SandboxTrialRun::interpret(const ExecutionResult& result,
                                                   const SandboxPolicy& policy,
                                                   const EgressSettings& egress)
{
    Report report;
    const QString unenforced = result.unenforcedLimits.join(QStringLiteral(", "));
    switch (result.outcome) {
    case ExecutionResult::Outcome::EngineError:
    case ExecutionResult::Outcome::TimedOutWaiting:
        report.detail = result.engineError;
        if (!result.unenforcedLimits.isEmpty()) {
            report.detail = QStringLiteral("the engine accepts but does not enforce the %1 "
                                           "limit(s): sandboxes refuse to run programs")
                                .arg(unenforced);
            report.fix = QStringLiteral(
                "run the engine with cgroup v2 and systemd, or use rootful Podman or Docker; or "
                "accept sandboxes without these limits: allow-unlimited=true under [server] in "
                "settings.ini (or --allow-unlimited)");
        } else if (result.engineError.contains(QLatin1String("/dev/net/tun"))) {
            report.fix = QStringLiteral("sudo chmod 0666 /dev/net/tun, then podman system "
                                        "migrate; or --network none");
        } else {
            report.fix = QStringLiteral("see the engine's message above");
        }
        return report;
    case ExecutionResult::Outcome::TimedOut:
    case ExecutionResult::Outcome::Cancelled:
        report.detail =
            QStringLiteral("the probe program did not finish within %1 s").arg(kTimeoutMs / 1000);
        report.fix = QStringLiteral("check that the engine is not overloaded (podman ps / docker "
                                    "ps)");
        return report;
    case ExecutionResult::Outcome::Exited:
        break;
    }
    if (result.exitCode != 0) {
        report.detail = QStringLiteral("the probe program failed (exit code %1): %2")
                            .arg(result.exitCode)
                            .arg(QString::fromUtf8(result.stderrBytes.trimmed().left(500)));
        report.fix = QStringLiteral("check the image: code-sandbox-desktop's Images page, Test");
        return report;
    }
    const QJsonObject probe = QJsonDocument::fromJson(result.stdoutBytes).object();
    const QJsonArray interfaces = probe.value(QLatin1String("interfaces")).toArray();
    QStringList names;
    for (const QJsonValue& name : interfaces)
        names << name.toString();
    names.removeAll(QStringLiteral("lo"));
    const QString proxyAnswer = probe.value(QLatin1String("proxy")).toString();
    if (egress.throughProxy() && !proxyAnswer.startsWith(QLatin1String("HTTP/1.1 403"))) {
        report.detail = QStringLiteral("the sandbox's egress proxy did not answer as it should "
                                       "(%1)")
                            .arg(proxyAnswer.isEmpty() ? QStringLiteral("no proxy in the sandbox")
                                                       : proxyAnswer);
        report.fix = QStringLiteral("check that the engine can mount folders of %1 into "
                                    "containers; or choose --egress none")
                         .arg(QDir::tempPath());
        return report;
    }
    if (policy.network != QLatin1String("none") && names.isEmpty()) {
        report.detail = QStringLiteral("the sandbox has no network besides loopback, though the "
                                       "settings ask for %1")
                            .arg(policy.network);
        report.fix = QStringLiteral("check the engine's networking (podman info / docker info), "
                                    "or choose --network none");
        return report;
    }
    const QString kernel = probe.value(QLatin1String("kernel")).toString();
    // The trial program is Python: its image's tier.
    const bool gvisor = policy.isolationFor(Language::Python) == Isolation::Gvisor;
    if (gvisor && kernel != QLatin1String(kGvisorKernelRelease)) {
        report.detail = QStringLiteral("isolation is gvisor, but the sandbox saw the kernel %1, "
                                       "not gVisor's (%2)")
                            .arg(kernel, QLatin1String(kGvisorKernelRelease));
        report.fix = QStringLiteral("check which runtime the engine gives %1 (podman info / "
                                    "docker info)")
                         .arg(QStringLiteral("runsc"));
        return report;
    }
    report.ok = true;
    report.detail =
        QStringLiteral("a Python program ran in %1 ms%2; %3")
            .arg(result.durationMs)
            .arg(gvisor ? QStringLiteral(" under gVisor (kernel %1)").arg(kernel) : QString())
            .arg(gvisor ? QStringLiteral("limits given to the engine for gVisor's whole sandbox "
                                         "(%1; not checked from inside)")
                              .arg(limitsText(policy))
                 : result.unenforcedLimits.isEmpty()
                     ? QStringLiteral("limits enforced (%1)").arg(limitsText(policy))
                     : QStringLiteral("limits NOT enforced: %1 (accepted by allow-unlimited)")
                           .arg(unenforced));
    if (egress.throughProxy()) {
        report.detail += QStringLiteral("; network through the egress proxy (%1; it refused the "
                                        "metadata address)")
                             .arg(EgressModes::toString(egress.mode));
    } else {
        report.detail += policy.network == QLatin1String("none")
                             ? QStringLiteral("; no network")
                             : QStringLiteral("; network %1 (%2)")
                                   .arg(policy.network, names.join(QStringLiteral(", ")));
    }
    return report;
}

} // namespace csm
