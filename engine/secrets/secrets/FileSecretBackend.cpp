#include "secrets/FileSecretBackend.h"

#include "core/PrivateFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>

namespace csm {

namespace {

const QString kValuesKey = QStringLiteral("values");

} // namespace

FileSecretBackend::FileSecretBackend(QString dataDir, QObject* parent)
    : SecretBackend(parent)
    , m_dataDir(std::move(dataDir))
{}

QString FileSecretBackend::filePath() const
{
    return QDir(m_dataDir).filePath(fileName());
}

void FileSecretBackend::isAvailable(AvailabilityDone done)
{
    Expected<void> usable =
        PrivateFiles::ensurePrivateFolder(m_dataDir, PrivateFiles::FolderMode::CreateOnly);
    if (usable)
        usable = PrivateFiles::checkPrivateFile(filePath());
    const bool available = usable.hasValue();
    const QString reason = available ? QStringLiteral("the values file is %1, mode 0600")
                                           .arg(QDir::toNativeSeparators(filePath()))
                                     : usable.error();
    post([done = std::move(done), available, reason] { done(available, reason); });
}

void FileSecretBackend::readValue(const QString& name, ValueDone done)
{
    const Expected<Values> values = load();
    QString error = values.error();
    QByteArray value;
    if (values) {
        const auto found = values->constFind(name);
        if (found == values->constEnd())
            error = QStringLiteral("%1 holds no value for %2")
                        .arg(QDir::toNativeSeparators(filePath()), name);
        else
            value = *found;
    }
    post([done = std::move(done), value, error] { done(value, error); });
}

void FileSecretBackend::writeValue(const QString& name, const QByteArray& value, Done done)
{
    Expected<Values> values = load();
    QString error = values.error();
    if (values) {
        values->insert(name, value);
        error = save(*values).error();
    }
    post([done = std::move(done), error] { done(error); });
}

void FileSecretBackend::removeValue(const QString& name, Done done)
{
    Expected<Values> values = load();
    QString error = values.error();
    if (values && values->remove(name) > 0)
        error = save(*values).error();
    post([done = std::move(done), error] { done(error); });
}

SecretsJsonFile FileSecretBackend::file() const
{
    return SecretsJsonFile(m_dataDir, fileName(), QStringLiteral("the secret values file"),
                           kFormatVersion);
}

Expected<FileSecretBackend::Values> FileSecretBackend::load() const
{
    const SecretsJsonFile file = this->file();
    // A values file that others could read has leaked already, and one they could write may hold
    // values planted for us: either way the user has to look at it, so refuse rather than fix.
    if (const Expected<void> checked = PrivateFiles::checkPrivateFile(file.path()); !checked)
        return Unexpected(checked.error());
    const Expected<QJsonObject> root = file.read();
    if (!root)
        return Unexpected(root.error());
    Values values;
    const QJsonObject stored = root->value(kValuesKey).toObject();
    for (auto it = stored.constBegin(); it != stored.constEnd(); ++it) {
        auto decoded = QByteArray::fromBase64Encoding(it.value().toString().toLatin1(),
                                                      QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return file.unreadable(
                QStringLiteral("the value of %1 is not valid base64").arg(it.key()));
        values.insert(it.key(), *decoded);
    }
    return values;
}

Expected<void> FileSecretBackend::save(const Values& values) const
{
    QJsonObject stored;
    for (auto it = values.constBegin(); it != values.constEnd(); ++it)
        stored.insert(it.key(), QString::fromLatin1(it.value().toBase64()));
    return file().write(QJsonObject{{kValuesKey, stored}}, PrivateFiles::FolderMode::Enforce);
}

void FileSecretBackend::post(std::function<void()> function)
{
    QMetaObject::invokeMethod(this, std::move(function), Qt::QueuedConnection);
}

} // namespace csm
