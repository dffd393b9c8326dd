#include "secrets/FileSecretBackend.h"

#include "core/PrivateFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace csm {

namespace {

const QString kVersionKey = QStringLiteral("version");
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
    QString error;
    const bool available = PrivateFiles::ensurePrivateFolder(
                               m_dataDir, PrivateFiles::FolderMode::CreateOnly, &error) &&
                           PrivateFiles::checkPrivateFile(filePath(), &error);
    const QString reason = available ? QStringLiteral("the values file is %1, mode 0600")
                                           .arg(QDir::toNativeSeparators(filePath()))
                                     : error;
    post([done = std::move(done), available, reason] { done(available, reason); });
}

void FileSecretBackend::readValue(const QString& name, ValueDone done)
{
    QMap<QString, QByteArray> values;
    QString error;
    QByteArray value;
    if (load(&values, &error)) {
        const auto found = values.constFind(name);
        if (found == values.constEnd())
            error = QStringLiteral("%1 holds no value for %2")
                        .arg(QDir::toNativeSeparators(filePath()), name);
        else
            value = *found;
    }
    post([done = std::move(done), value, error] { done(value, error); });
}

void FileSecretBackend::writeValue(const QString& name, const QByteArray& value, Done done)
{
    QMap<QString, QByteArray> values;
    QString error;
    if (load(&values, &error)) {
        values.insert(name, value);
        save(values, &error);
    }
    post([done = std::move(done), error] { done(error); });
}

void FileSecretBackend::removeValue(const QString& name, Done done)
{
    QMap<QString, QByteArray> values;
    QString error;
    if (load(&values, &error) && values.remove(name) > 0)
        save(values, &error);
    post([done = std::move(done), error] { done(error); });
}

bool FileSecretBackend::load(QMap<QString, QByteArray>* values, QString* error) const
{
    values->clear();
    const QString path = filePath();
    // A values file that others could read has leaked already, and one they could write may hold
    // values planted for us: either way the user has to look at it, so refuse rather than fix.
    if (!PrivateFiles::checkPrivateFile(path, error))
        return false;
    const auto fail = [&](const QString& reason) {
        values->clear();
        *error = QStringLiteral("cannot read the secret values file %1: %2")
                     .arg(QDir::toNativeSeparators(path), reason);
        return false;
    };
    QJsonObject root;
    QString reason;
    if (!PrivateFiles::readVersionedJson(path, kFormatVersion, &root, &reason))
        return fail(reason);
    const QJsonObject stored = root.value(kValuesKey).toObject();
    for (auto it = stored.constBegin(); it != stored.constEnd(); ++it) {
        auto decoded = QByteArray::fromBase64Encoding(it.value().toString().toLatin1(),
                                                      QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return fail(QStringLiteral("the value of %1 is not valid base64").arg(it.key()));
        values->insert(it.key(), *decoded);
    }
    return true;
}

bool FileSecretBackend::save(const QMap<QString, QByteArray>& values, QString* error) const
{
    QJsonObject stored;
    for (auto it = values.constBegin(); it != values.constEnd(); ++it)
        stored.insert(it.key(), QString::fromLatin1(it.value().toBase64()));
    const QJsonObject root{{kVersionKey, kFormatVersion}, {kValuesKey, stored}};
    QString reason;
    if (!PrivateFiles::ensurePrivateFolder(m_dataDir, PrivateFiles::FolderMode::Enforce, &reason) ||
        !PrivateFiles::writePrivateFile(filePath(), QJsonDocument(root).toJson(), &reason)) {
        *error = QStringLiteral("cannot write the secret values file: %1").arg(reason);
        return false;
    }
    return true;
}

void FileSecretBackend::post(std::function<void()> function)
{
    QMetaObject::invokeMethod(this, std::move(function), Qt::QueuedConnection);
}

} // namespace csm
