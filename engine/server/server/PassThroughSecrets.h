#pragma once

#include "core/FileContentWatcher.h"
#include "secrets/SecretStore.h"

#include <QByteArray>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <memory>

namespace csm {

class SandboxRunner;

// Keeps the runner's secrets current: the --pass-through-env variables from the server's own
// environment, plus the store's secrets marked pass-through, read at start and again whenever the
// secrets index (secrets.json) changes, so that a secret set, removed or toggled from the command
// line or the app applies to the next run. While they are being read the runner holds new runs
// (for at most kHoldBudgetMs: a keychain waiting for its user to unlock it must not stall every
// call). Values that cannot be read are left out, with a warning naming them; names are logged,
// values never (and LogRedaction hides them from every log line).
class PassThroughSecrets final : public QObject
{
    Q_OBJECT

public:
    static constexpr int kHoldBudgetMs = 10'000;

    struct Config
    {
        // Names of the server's own environment variables (ServerOptions::passThroughEnvironment).
        QStringList environmentNames;
        QString dataDir;
        SecretStore::BackendChoice backend = SecretStore::BackendChoice::Auto;
    };

    PassThroughSecrets(SandboxRunner& runner, Config config, QObject* parent = nullptr);
    ~PassThroughSecrets() override;

    // Holds the runner, reads the secrets and starts watching the index.
    void start();

Q_SIGNALS:
    // The runner got a new set of secrets (after start() and after each change).
    void applied(const QStringList& names);

private:
    void resolve();
    void resolveFromStore();
    void finish(const SecretStore::NamedValues& fromStore);

    SandboxRunner& m_runner;
    Config m_config;
    std::unique_ptr<SecretStore> m_store;
    FileContentWatcher m_index; // secrets.json
    QTimer m_holdBudget;
    bool m_resolving = false;
    bool m_changedWhileResolving = false;
};

} // namespace csm
