#include "settings/SettingsFile.h"

#include <QDir>
#include <QFile>
#include <QSettings>

namespace csm {

SettingsFile::SettingsFile(const QString& dataDir, const QString& group)
    : m_dataDir(dataDir)
    , m_group(group)
{
    if (!QFile::exists(path(dataDir)))
        return; // QSettings would happily read nothing, but not create anything either
    QSettings settings(path(dataDir), QSettings::IniFormat);
    settings.beginGroup(group);
    const QStringList keys = settings.childKeys();
    for (const QString& key : keys)
        m_values.insert(key, settings.value(key).toString());
}

QString SettingsFile::path(const QString& dataDir)
{
    return QDir(dataDir).filePath(QStringLiteral("settings.ini"));
}

bool SettingsFile::save(QString* error) const
{
    if (!QDir().mkpath(m_dataDir)) {
        if (error)
            *error = QStringLiteral("Cannot create the folder %1.")
                         .arg(QDir::toNativeSeparators(m_dataDir));
        return false;
    }
    QSettings settings(path(m_dataDir), QSettings::IniFormat);
    settings.beginGroup(m_group);
    for (auto it = m_values.cbegin(); it != m_values.cend(); ++it)
        settings.setValue(it.key(), it.value());
    settings.endGroup();
    settings.sync();
    // The desktop group holds the HTTP server's token.
    QFile::setPermissions(path(m_dataDir), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    if (settings.status() != QSettings::NoError) {
        if (error)
            *error =
                QStringLiteral("Cannot write %1.").arg(QDir::toNativeSeparators(path(m_dataDir)));
        return false;
    }
    return true;
}

} // namespace csm
