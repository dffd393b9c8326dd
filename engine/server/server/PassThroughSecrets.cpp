#include "server/PassThroughSecrets.h"

#include "core/Logging.h"
#include "sandbox/SandboxRunner.h"
#include "sandbox/SandboxSecrets.h"
#include "secrets/LogRedaction.h"
#include "secrets/SecretIndex.h"

#include <QProcessEnvironment>

#include <algorithm>
#include <utility>

namespace csm {

PassThroughSecrets::PassThroughSecrets(SandboxRunner& runner, Config config, QObject* parent)
    : QObject(parent)
    , m_runner(runner)
    , m_config(std::move(config))
    , m_store(std::make_unique<SecretStore>(m_config.dataDir, m_config.backend))
    , m_index(SecretIndex(m_config.dataDir).filePath())
{
    m_holdBudget.setSingleShot(true);
    connect(&m_holdBudget, &QTimer::timeout, this, [this] {
        if (!m_runner.isHeldForSecrets())
            return;
        qCWarning(lcServer) << "secrets: the secret store has not answered in"
                            << kHoldBudgetMs / 1000
                            << "s; runs go on with the secrets they had until it does";
        m_runner.setSecrets(m_runner.secrets());
    });
    // The folder also holds the history, whose files come and go: only a new index counts.
    connect(&m_index, &FileContentWatcher::contentChanged, this, [this] {
        qCInfo(lcServer) << "secrets: the secrets changed; reading them again";
        resolve();
    });
}

PassThroughSecrets::~PassThroughSecrets() = default;

void PassThroughSecrets::start()
{
    // Nothing is created here: --no-history leaves the data folder alone.
    m_index.start();
    resolve();
}

void PassThroughSecrets::resolve()
{
    // From now until the new values are in, runs wait: a secret just set applies to the next
    // run, not the one after.
    m_runner.holdForSecrets();
    m_holdBudget.start(kHoldBudgetMs);
    if (m_resolving) {
        m_changedWhileResolving = true;
        return;
    }
    m_resolving = true;
    // Queued: applied() never comes from inside start(), whatever the store holds.
    QMetaObject::invokeMethod(this, &PassThroughSecrets::resolveFromStore, Qt::QueuedConnection);
}

void PassThroughSecrets::resolveFromStore()
{
    const Expected<QList<SecretInfo>> secrets = m_store->list();
    if (!secrets) {
        qCWarning(lcServer).noquote()
            << "secrets: no pass-through secret is passed:" << secrets.error();
        finish({});
        return;
    }
    const bool anyPassThrough =
        std::any_of(secrets->cbegin(), secrets->cend(),
                    [](const SecretInfo& info) { return info.passThrough; });
    if (!anyPassThrough) {
        finish({});
        return;
    }
    const auto read = [this] {
        m_store->resolvePassThrough(
            [this](const SecretStore::NamedValues& values, const QString& failed) {
                if (!failed.isEmpty())
                    qCWarning(lcServer).noquote()
                        << "secrets:" << failed << "; no pass-through secret is passed";
                finish(values);
            });
    };
    if (m_store->isOpen()) {
        read();
        return;
    }
    m_store->open([this, read](const QString& failed) {
        if (!failed.isEmpty()) {
            qCWarning(lcServer).noquote()
                << "secrets: the secret store cannot be opened; no pass-through secret is "
                   "passed:"
                << failed;
            finish({});
            return;
        }
        read();
    });
}

void PassThroughSecrets::finish(const SecretStore::NamedValues& fromStore)
{
    if (std::exchange(m_changedWhileResolving, false)) {
        resolveFromStore();
        return;
    }
    m_resolving = false;
    m_holdBudget.stop();

    // The server's own variables first: a name given with --pass-through-env wins over a
    // stored secret of the same name.
    const QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    SandboxSecrets::Variables variables;
    for (const QString& name : m_config.environmentNames) {
        if (environment.contains(name))
            variables.append({name, environment.value(name).toUtf8()});
    }
    for (const auto& [name, value] : fromStore) {
        if (m_config.environmentNames.contains(name)) {
            qCWarning(lcServer).noquote()
                << "secrets:" << name
                << "is both a stored secret and a --pass-through-env variable; the "
                   "server's environment wins";
            continue;
        }
        variables.append({name, value});
    }
    const auto secrets = SandboxSecrets::make(variables);
    // Logs first: from here on a run may print the values.
    LogRedaction::setRedactor(secrets->redactor());
    m_runner.setSecrets(secrets);
    const QStringList names = secrets->names();
    if (!fromStore.isEmpty() || !names.isEmpty()) {
        qCInfo(lcServer).noquote()
            << "secrets: passed to every sandbox:"
            << (names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", ")));
    }
    Q_EMIT applied(names);
}

} // namespace csm
