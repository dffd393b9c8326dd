#include "secrets/KeychainSecretBackend.h"

#include <qt6keychain/keychain.h>
#include <QTimer>

#include <memory>
#include <utility>

namespace csm {

namespace {

// Not a valid secret name (it has '-'), so it never collides with a stored secret.
const QString kProbeKey = QStringLiteral("availability-probe");

// QtKeychain's Job defaults are the right ones today; set them anyway so that a change of
// default in a later QtKeychain cannot turn on the plaintext fallback or leak jobs.
template <typename Job>
Job* newJob(const QString& name)
{
    auto* job = new Job(QString(KeychainSecretBackend::kService));
    // No parent: QtKeychain's libsecret callbacks hold a raw pointer to the job, so a job must
    // never be deleted while it runs; it deletes itself once finished.
    job->setAutoDelete(true);
    job->setInsecureFallback(false);
    job->setKey(name);
    return job;
}

bool looksLikeNoService(const QString& detail)
{
    // What GDBus and libsecret say when there is no session bus or no Secret Service on it.
    static const QStringList hints{
        QStringLiteral("org.freedesktop.secrets"),
        QStringLiteral("Could not connect"),
        QStringLiteral("autolaunch"),
        QStringLiteral("D-Bus"),
        QStringLiteral("DBus"),
        QStringLiteral("dbus"),
        QStringLiteral("No such interface"),
        QStringLiteral("ServiceUnknown"),
    };
    for (const QString& hint : hints) {
        if (detail.contains(hint))
            return true;
    }
    return false;
}

} // namespace

KeychainSecretBackend::KeychainSecretBackend(QObject* parent)
    : SecretBackend(parent)
{}

QString KeychainSecretBackend::noServiceMessage()
{
    return QStringLiteral("no Secret Service: run with --secrets-file or install gnome-keyring");
}

QString KeychainSecretBackend::describeError(int code, const QString& detail, const QString& name)
{
    const QString suffix = detail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(detail);
    QString lockedMessage =
        QStringLiteral("the keychain is locked or refused access: unlock it and retry") + suffix;
    switch (static_cast<QKeychain::Error>(code)) {
    case QKeychain::NoError:
        return {};
    case QKeychain::EntryNotFound:
        // A locked keyring answers lookups with "nothing found" rather than an error.
        return QStringLiteral("the keychain holds no value for %1 (if the keychain is locked, "
                              "unlock it and retry)")
            .arg(name);
    case QKeychain::AccessDenied:
    case QKeychain::AccessDeniedByUser:
        return lockedMessage;
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
        return noServiceMessage() + suffix;
    case QKeychain::CouldNotDeleteEntry:
        return QStringLiteral("could not remove %1 from the keychain").arg(name) + suffix;
    case QKeychain::OtherError:
        break;
    }
    if (detail.contains(QStringLiteral("locked"), Qt::CaseInsensitive))
        return lockedMessage;
    // gnome-keyring without a login keyring, where no prompt can create one (no display).
    if (detail.contains(QStringLiteral("does not exist at path")))
        return QStringLiteral("the keychain has no default keyring to keep %1 in: create one "
                              "(log in to the desktop once) or run with --secrets-file")
                   .arg(name) +
               suffix;
    if (looksLikeNoService(detail))
        return noServiceMessage() + suffix;
    if (name.isEmpty())
        return QStringLiteral("keychain error") + suffix;
    return QStringLiteral("keychain error for %1").arg(name) + suffix;
}

void KeychainSecretBackend::isAvailable(AvailabilityDone done)
{
    // The job, the timer and the callback share this: whichever comes first answers.
    auto answer = std::make_shared<AvailabilityDone>(std::move(done));
    auto* job = newJob<QKeychain::ReadPasswordJob>(kProbeKey);
    connect(job, &QKeychain::Job::finished, this, [answer](QKeychain::Job* finished) {
        if (!*answer)
            return;
        const auto code = finished->error();
        const bool available = code == QKeychain::NoError || code == QKeychain::EntryNotFound;
        const QString reason = available
                                   ? QStringLiteral("a Secret Service answered on the session bus")
                                   : describeError(code, finished->errorString(), QString());
        std::exchange(*answer, nullptr)(available, reason);
    });
    QTimer::singleShot(kProbeTimeoutMs, this, [answer] {
        if (*answer)
            std::exchange(*answer, nullptr)(
                false, noServiceMessage() + QStringLiteral(" (the Secret Service did not answer "
                                                           "within %1 s)")
                                                .arg(kProbeTimeoutMs / 1000));
    });
    job->start();
}

void KeychainSecretBackend::readValue(const QString& name, ValueDone done)
{
    auto* job = newJob<QKeychain::ReadPasswordJob>(name);
    connect(job, &QKeychain::Job::finished, this,
            [done = std::move(done), name](QKeychain::Job* finished) {
                if (finished->error() != QKeychain::NoError) {
                    done({}, describeError(finished->error(), finished->errorString(), name));
                    return;
                }
                done(static_cast<QKeychain::ReadPasswordJob*>(finished)->binaryData(), {});
            });
    job->start();
}

void KeychainSecretBackend::writeValue(const QString& name, const QByteArray& value, Done done)
{
    auto* job = newJob<QKeychain::WritePasswordJob>(name);
    // Binary, always: QtKeychain stores text and binary entries under different attributes, and
    // mixing the two would leave a stale entry that a later read could find first.
    job->setBinaryData(value);
    connect(job, &QKeychain::Job::finished, this,
            [done = std::move(done), name](QKeychain::Job* finished) {
                done(finished->error() == QKeychain::NoError
                         ? QString()
                         : describeError(finished->error(), finished->errorString(), name));
            });
    job->start();
}

void KeychainSecretBackend::removeValue(const QString& name, Done done)
{
    auto* job = newJob<QKeychain::DeletePasswordJob>(name);
    connect(job, &QKeychain::Job::finished, this,
            [done = std::move(done), name](QKeychain::Job* finished) {
                const auto code = finished->error();
                done(code == QKeychain::NoError || code == QKeychain::EntryNotFound
                         ? QString()
                         : describeError(code, finished->errorString(), name));
            });
    job->start();
}

} // namespace csm
