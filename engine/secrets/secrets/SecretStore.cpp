#include "secrets/SecretStore.h"

#include "core/Logging.h"
#include "secrets/FileSecretBackend.h"
#include "secrets/KeychainSecretBackend.h"
#include "secrets/SecretIndex.h"

#include <QDir>
#include <QStandardPaths>

#include <algorithm>

namespace csm {

namespace {

QString describeChoice(const QString& kind, const QString& reason)
{
    const QString where = kind == SecretBackend::kKeychainKind ? QStringLiteral("the keychain")
                                                               : QStringLiteral("a private file");
    return QStringLiteral("secrets: values are kept in %1 (%2)").arg(where, reason);
}

} // namespace

SecretStore::SecretStore(const QString& dataDir, BackendChoice choice, QObject* parent)
    : SecretStore(dataDir, choice, std::make_unique<KeychainSecretBackend>(),
                  std::make_unique<FileSecretBackend>(dataDir), parent)
{}

SecretStore::SecretStore(QString dataDir, BackendChoice choice,
                         std::unique_ptr<SecretBackend> keychain,
                         std::unique_ptr<SecretBackend> file, QObject* parent)
    : QObject(parent)
    , m_dataDir(std::move(dataDir))
    , m_choice(choice)
    , m_keychain(std::move(keychain))
    , m_file(std::move(file))
{
    Q_ASSERT(m_keychain && m_keychain->kind() == SecretBackend::kKeychainKind);
    Q_ASSERT(m_file && m_file->kind() == SecretBackend::kFileKind);
}

SecretStore::~SecretStore() = default;

QString SecretStore::defaultDataDir()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/code-sandbox");
}

QString SecretStore::backendKind() const
{
    return m_backend ? m_backend->kind() : QString();
}

void SecretStore::open(Done done)
{
    if (m_opening || m_backend) {
        fail(std::move(done), QStringLiteral("the secret store is already open or opening"));
        return;
    }
    SecretIndex index(m_dataDir);
    if (const Expected<void> loaded = index.load(); !loaded) {
        fail(std::move(done), loaded.error());
        return;
    }
    // The backend that holds the values of the secrets already listed, if any.
    const QString bound = index.isEmpty() ? QString() : index.backendKind();
    const QString indexPath = QDir::toNativeSeparators(index.filePath());
    const auto boundElsewhere = [&](const QString& kind, const QString& how) {
        return QStringLiteral("the %1 secrets listed in %2 are kept in the %3 backend; %4")
            .arg(QString::number(index.secrets().size()), indexPath, kind, how);
    };

    m_opening = true;
    const auto useFile = [this](const QString& why, Done then) {
        m_file->isAvailable(
            [this, why, then = std::move(then)](bool available, const QString& reason) {
                if (!available) {
                    failOpen(then, reason);
                    return;
                }
                choose(m_file.get(), why.isEmpty() ? reason : why + QStringLiteral("; ") + reason,
                       then);
            });
    };

    switch (m_choice) {
    case BackendChoice::File:
        if (bound == SecretBackend::kKeychainKind) {
            failOpen(
                std::move(done),
                boundElsewhere(bound, QStringLiteral("start without --secrets-file to use them, "
                                                     "or remove them before switching")));
            return;
        }
        useFile(QStringLiteral("the file backend was asked for"), std::move(done));
        return;
    case BackendChoice::Keychain:
        if (bound == SecretBackend::kFileKind) {
            failOpen(std::move(done),
                     boundElsewhere(bound, QStringLiteral("start with --secrets-file to use them, "
                                                          "or remove them before switching")));
            return;
        }
        m_keychain->isAvailable(
            [this, done = std::move(done)](bool available, const QString& reason) {
                if (!available)
                    failOpen(done, reason);
                else
                    choose(m_keychain.get(), reason, done);
            });
        return;
    case BackendChoice::Auto: {
        if (bound == SecretBackend::kFileKind) {
            useFile(QStringLiteral("the secrets already listed are kept in the file backend"),
                    std::move(done));
            return;
        }
        const QString unreachable = boundElsewhere(
            SecretBackend::kKeychainKind, QStringLiteral("the keychain is not reachable: "));
        m_keychain->isAvailable([this, bound, unreachable, useFile,
                                 done = std::move(done)](bool available, const QString& reason) {
            if (available)
                choose(m_keychain.get(), reason, done);
            else if (bound == SecretBackend::kKeychainKind)
                failOpen(done, unreachable + reason);
            else
                useFile(reason, done);
        });
        return;
    }
    }
}

void SecretStore::choose(SecretBackend* backend, const QString& reason, Done done)
{
    // Nothing is written here: an empty index binds nothing, and set() records the backend
    // with the first secret.
    m_opening = false;
    m_backend = backend;
    m_backendReason = reason;
    qCInfo(lcEngine).noquote() << describeChoice(backend->kind(), reason);
    Q_EMIT backendChosen(backend->kind(), reason);
    done({});
}

void SecretStore::fail(Done done, const QString& error)
{
    post([done = std::move(done), error] { done(error); });
}

void SecretStore::failOpen(Done done, const QString& error)
{
    m_opening = false;
    fail(std::move(done), error);
}

void SecretStore::post(std::function<void()> function)
{
    QMetaObject::invokeMethod(this, std::move(function), Qt::QueuedConnection);
}

QString SecretStore::checkOpen() const
{
    if (m_backend)
        return {};
    return QStringLiteral("the secret store is not open: call open() and wait for its answer");
}

Expected<void> SecretStore::checkListed(const QString& name) const
{
    if (const QString notOpen = checkOpen(); !notOpen.isEmpty())
        return Unexpected(notOpen);
    SecretIndex index(m_dataDir);
    if (const Expected<void> loaded = index.load(); !loaded)
        return loaded;
    if (!index.find(name))
        return Unexpected(QStringLiteral("there is no secret named %1").arg(name));
    return {};
}

Expected<QList<SecretInfo>> SecretStore::list() const
{
    SecretIndex index(m_dataDir);
    if (const Expected<void> loaded = index.load(); !loaded)
        return Unexpected(loaded.error());
    return index.secrets();
}

Expected<void> SecretStore::updateIndex(const std::function<Expected<void>(SecretIndex&)>& change)
{
    SecretIndex index(m_dataDir);
    Expected<void> updated = index.load();
    if (updated)
        updated = change(index);
    if (updated)
        updated = index.save();
    if (updated)
        Q_EMIT secretsChanged();
    return updated;
}

void SecretStore::set(const QString& name, const QByteArray& value, bool passThrough, Done done)
{
    QString error = SecretInfo::nameError(name);
    if (error.isEmpty())
        error = checkOpen();
    if (error.isEmpty() && value.isEmpty())
        error = QStringLiteral("the value of %1 is empty").arg(name);
    if (error.isEmpty() && value.contains('\0'))
        error = QStringLiteral("the value of %1 contains a NUL byte, which an environment "
                               "variable cannot hold")
                    .arg(name);
    if (!error.isEmpty()) {
        fail(std::move(done), error);
        return;
    }
    m_backend->writeValue(
        name, value, [this, name, passThrough, done = std::move(done)](const QString& written) {
            if (!written.isEmpty()) {
                done(written);
                return;
            }
            const QString kind = m_backend->kind();
            const Expected<void> indexed = updateIndex([&](SecretIndex& index) {
                index.setBackendKind(kind);
                index.upsert(SecretInfo{name, passThrough, QDateTime::currentDateTimeUtc()});
                return Expected<void>();
            });
            if (indexed)
                qCInfo(lcEngine).noquote()
                    << QStringLiteral("secrets: set %1%2")
                           .arg(name, passThrough ? QStringLiteral(" (pass-through)") : QString());
            done(indexed.error());
        });
}

void SecretStore::remove(const QString& name, Done done)
{
    if (const Expected<void> listed = checkListed(name); !listed) {
        fail(std::move(done), listed.error());
        return;
    }
    m_backend->removeValue(name, [this, name, done = std::move(done)](const QString& removed) {
        if (!removed.isEmpty()) {
            done(removed);
            return;
        }
        const Expected<void> indexed = updateIndex([&](SecretIndex& current) {
            current.remove(name);
            return Expected<void>();
        });
        if (indexed)
            qCInfo(lcEngine).noquote() << QStringLiteral("secrets: removed %1").arg(name);
        done(indexed.error());
    });
}

void SecretStore::setPassThrough(const QString& name, bool passThrough, Done done)
{
    const QString error =
        updateIndex([&](SecretIndex& index) -> Expected<void> {
            auto info = index.find(name);
            if (!info)
                return Unexpected(QStringLiteral("there is no secret named %1").arg(name));
            info->passThrough = passThrough;
            index.upsert(*info);
            return {};
        }).error();
    post([done = std::move(done), error] { done(error); });
}

void SecretStore::read(const QString& name, ValueDone done)
{
    if (const Expected<void> listed = checkListed(name); !listed) {
        post([done = std::move(done), error = listed.error()] { done({}, error); });
        return;
    }
    m_backend->readValue(name, std::move(done));
}

void SecretStore::resolvePassThrough(ResolveDone done)
{
    QString error = checkOpen();
    QList<SecretInfo> wanted;
    if (error.isEmpty()) {
        const Expected<QList<SecretInfo>> all = list();
        error = all.error();
        if (all)
            std::copy_if(all->begin(), all->end(), std::back_inserter(wanted),
                         [](const SecretInfo& info) { return info.passThrough; });
    }
    if (!error.isEmpty() || wanted.isEmpty()) {
        post([done = std::move(done), error] { done({}, error); });
        return;
    }

    // The reads run side by side; the last one to answer calls `done`.
    struct Resolution
    {
        ResolveDone done;
        NamedValues values;
        QStringList errors;
        qsizetype pending = 0;
    };
    auto resolution = std::make_shared<Resolution>();
    resolution->done = std::move(done);
    resolution->pending = wanted.size();
    for (const SecretInfo& info : wanted) {
        m_backend->readValue(info.name, [resolution, name = info.name](const QByteArray& value,
                                                                       const QString& failed) {
            if (failed.isEmpty())
                resolution->values.append({name, value});
            else
                resolution->errors.append(QStringLiteral("%1: %2").arg(name, failed));
            if (--resolution->pending > 0)
                return;
            if (!resolution->errors.isEmpty()) {
                resolution->errors.sort();
                resolution->done({}, QStringLiteral("cannot read the pass-through secrets: ") +
                                         resolution->errors.join(QStringLiteral("; ")));
                return;
            }
            std::sort(resolution->values.begin(), resolution->values.end(),
                      [](const auto& a, const auto& b) { return a.first < b.first; });
            resolution->done(resolution->values, {});
        });
    }
}

} // namespace csm
