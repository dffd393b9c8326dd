#pragma once

#include "cli/Command.h"
#include "history/HistoryOptions.h"
#include "server/ServerSettings.h"

#include <QHash>
#include <QList>
#include <QString>

#include <functional>
#include <memory>

class QTimer;

namespace csm {

class ContainerRuntime;
class EngineHealthCheck;
class SandboxTrialRun;
class SecretStore;
struct HealthProblem;

// `code-sandbox-mcp doctor [--data-dir DIR] [--secrets-file] [--json]`: whether this machine can
// run sandboxes, one line per check, each problem with the command that fixes it:
//   settings    settings.ini in the data folder reads without a problem (ServerSettings)
//   engine      the container engine (settings, else $CODE_SANDBOX_ENGINE overriding them, else
//               auto) is on PATH and answers (EngineHealthCheck)
//   image       each language's image (the settings' choice, else the locally built default)
//   storage     the engine's storage driver is not vfs (every cold start would copy the image)
//   sandbox     one real sandbox runs a probe as a server would (SandboxTrialRun): the engine
//               enforces the limits (or allow-unlimited accepts that) and the network works
//   launcher    csm-launch, the sandbox's PID 1 (SandboxFilesLocator)
//   seccomp     csm-seccomp.json, the sandbox's seccomp profile, is there and reads as one
//   secrets     a keychain (Secret Service) answers, or the private file is used (SecretStore)
//   data folder exists or can be created, is writable, private (0700); history.sqlite opens
//   clients     no assistant's user configuration starts a Code Sandbox program that is no
//               longer there (moved or uninstalled since install-client; ClientSurvey)
// Exits with 0 when every check passes, 1 when one does not, 2 on a usage error.
//
// Asynchronous (the engine and the keychain answer through the event loop): call start() and
// wait for finished(). Every probe has a time limit, and so has the whole (kTimeoutMs).
class DoctorCommand final : public Command
{
    Q_OBJECT

public:
    // The longest the checks may take together; each engine question has 20 s, the keychain
    // 10 s, and they run side by side.
    static constexpr int kTimeoutMs = 45'000;

    // `arguments`: what follows `doctor`. `out` gets the checks, `err` usage errors; both must
    // outlive the command.
    DoctorCommand(QStringList arguments, const QProcessEnvironment& environment, QTextStream& out,
                  QTextStream& err, QObject* parent = nullptr);
    ~DoctorCommand() override;

    static QString synopsis();

private:
    struct Check
    {
        enum class Status
        {
            Pending,
            Ok,
            Problem,
            Skipped, // not checked because of another problem
        };
        QString name;
        Status status = Status::Pending;
        QString detail;
        QString fix;
    };

    Syntax syntax() const override;
    // Starts the checks; the last to answer reports them all.
    void run() override;

    void checkSettings(const QString& dataDir, const QStringList& problems);
    void checkDataFolder(const QString& dataDir);
    void checkLauncher();
    void checkSeccompProfile();
    void checkClients();
    void startEngineCheck();
    void onEngineChecked(const QList<HealthProblem>& problems);
    void startStorageCheck();
    // Whether gVisor is installed and the engine can start sandboxes under it.
    void startIsolationCheck();
    // Local or remote, and how many milliseconds a call to the engine adds.
    // Then `then`.
    void startLocationCheck(const std::function<void()>& then);
    void startSandboxCheck();
    void startSecretsCheck(const QString& dataDir, bool secretsFile);
    void onTimeout();
    void finishIfDone();
    void report();

    Check& checkNamed(const QString& name);
    Check& add(const QString& name);

    const HistoryOptions m_historyOptions;
    const QCommandLineOption m_secretsFile;
    bool m_json = false;
    bool m_done = false;
    QList<Check> m_checks;
    ServerSettings m_settings;
    QString m_engineName;                              // as RuntimeFactory takes it; empty: auto
    std::shared_ptr<const ContainerRuntime> m_runtime; // that engine, once it is known
    QString m_pythonImage;                             // the reference the sandbox check runs
    QString m_engineDescription;                       // "podman (/usr/bin/podman) answers"
    QHash<QString, QString> m_imageDescriptions;       // by check name: the image asked for
    std::unique_ptr<EngineHealthCheck> m_health;
    std::unique_ptr<SandboxTrialRun> m_trialRun;
    std::unique_ptr<SecretStore> m_secrets;
    QTimer* m_timeout = nullptr;
};

} // namespace csm
