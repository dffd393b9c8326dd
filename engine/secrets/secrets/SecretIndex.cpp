#include "secrets/SecretIndex.h"

#include "secrets/SecretBackend.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>

#include <algorithm>

namespace csm {

namespace {

const QString kBackendKey = QStringLiteral("backend");
const QString kSecretsKey = QStringLiteral("secrets");
const QString kNameKey = QStringLiteral("name");
const QString kPassThroughKey = QStringLiteral("passThrough");
const QString kUpdatedAtKey = QStringLiteral("updatedAt");

} // namespace

SecretIndex::SecretIndex(QString dataDir)
    : m_dataDir(std::move(dataDir))
{}

QString SecretIndex::filePath() const
{
    return QDir(m_dataDir).filePath(fileName());
}

SecretsJsonFile SecretIndex::file() const
{
    return SecretsJsonFile(m_dataDir, fileName(), QStringLiteral("the secrets index"),
                           kFormatVersion);
}

Expected<void> SecretIndex::load()
{
    m_backendKind.clear();
    m_secrets.clear();
    const SecretsJsonFile file = this->file();
    const auto fail = [&](const QString& reason) {
        m_backendKind.clear();
        m_secrets.clear();
        return file.unreadable(reason);
    };

    const Expected<QJsonObject> root = file.read();
    if (!root)
        return Unexpected(root.error());

    const QString backend = root->value(kBackendKey).toString();
    if (!backend.isEmpty() && backend != SecretBackend::kKeychainKind &&
        backend != SecretBackend::kFileKind)
        return fail(QStringLiteral("unknown backend \"%1\"").arg(backend));
    m_backendKind = backend;

    const QJsonArray entries = root->value(kSecretsKey).toArray();
    for (const auto& value : entries) {
        const QJsonObject entry = value.toObject();
        SecretInfo info;
        info.name = entry.value(kNameKey).toString();
        if (!SecretInfo::isValidName(info.name))
            return fail(SecretInfo::nameError(info.name));
        if (find(info.name))
            return fail(QStringLiteral("\"%1\" is listed twice").arg(info.name));
        info.passThrough = entry.value(kPassThroughKey).toBool();
        info.updatedAt =
            QDateTime::fromString(entry.value(kUpdatedAtKey).toString(), Qt::ISODateWithMs);
        m_secrets.append(info);
    }
    std::sort(m_secrets.begin(), m_secrets.end(),
              [](const SecretInfo& a, const SecretInfo& b) { return a.name < b.name; });
    return {};
}

Expected<void> SecretIndex::save() const
{
    QJsonArray entries;
    for (const SecretInfo& info : m_secrets) {
        entries.append(QJsonObject{
            {kNameKey, info.name},
            {kPassThroughKey, info.passThrough},
            {kUpdatedAtKey, info.updatedAt.toUTC().toString(Qt::ISODateWithMs)},
        });
    }
    return file().write(QJsonObject{{kBackendKey, m_backendKind}, {kSecretsKey, entries}},
                        PrivateFiles::FolderMode::CreateOnly);
}

std::optional<SecretInfo> SecretIndex::find(const QString& name) const
{
    for (const SecretInfo& info : m_secrets) {
        if (info.name == name)
            return info;
    }
    return std::nullopt;
}

void SecretIndex::upsert(const SecretInfo& info)
{
    const auto at = std::lower_bound(
        m_secrets.begin(), m_secrets.end(), info.name,
        [](const SecretInfo& entry, const QString& name) { return entry.name < name; });
    if (at != m_secrets.end() && at->name == info.name)
        *at = info;
    else
        m_secrets.insert(at, info);
}

bool SecretIndex::remove(const QString& name)
{
    return m_secrets.removeIf([&](const SecretInfo& info) { return info.name == name; }) > 0;
}

} // namespace csm
