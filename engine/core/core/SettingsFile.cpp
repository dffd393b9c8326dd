#include "core/SettingsFile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSettings>

namespace csm {

namespace {
constexpr QFileDevice::Permissions kPrivateFile = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
constexpr QFileDevice::Permissions kPrivateFolder = kPrivateFile | QFileDevice::ExeOwner;
constexpr QFileDevice::Permissions kGroupOrOthers =
    QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
    QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
} // namespace

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

Expected<void> SettingsFile::save() const
{
    const QString file = path(m_dataDir);
    // A new data folder is private like the history's (HistoryStore makes it so too): nobody
    // else may swap files in it. Another process may create it at the same moment.
    if (!QDir(m_dataDir).exists() &&
        !(QDir().mkpath(QFileInfo(m_dataDir).absolutePath()) &&
          QDir().mkdir(m_dataDir, kPrivateFolder)) &&
        !QDir(m_dataDir).exists())
        return Unexpected(QStringLiteral("Cannot create the folder %1.")
                              .arg(QDir::toNativeSeparators(m_dataDir)));
    // The desktop group holds the HTTP server's token, so the file is private from its first
    // moment on. QSettings writes a temporary file (QSaveFile) and renames it over this one;
    // that file gets the mode of the file it replaces, or 0666 less the umask when there is
    // none. So there always is one by then, created here with mode 0600, or made 0600 if an
    // older version left it readable by others.
    if (!QFileInfo::exists(file)) {
        QFile created(file);
        // NewOnly: a file that another process creates at the same moment is made the same way.
        if (!created.open(QIODevice::WriteOnly | QIODevice::NewOnly, kPrivateFile) &&
            !QFileInfo::exists(file))
            return Unexpected(QStringLiteral("Cannot create %1: %2.")
                                  .arg(QDir::toNativeSeparators(file), created.errorString()));
    }
    if ((QFileInfo(file).permissions() & kGroupOrOthers) &&
        !QFile::setPermissions(file, kPrivateFile))
        return Unexpected(QStringLiteral("Cannot make %1 private (chmod 600 %1).")
                              .arg(QDir::toNativeSeparators(file)));
    QSettings settings(file, QSettings::IniFormat);
    settings.beginGroup(m_group);
    for (auto it = m_values.cbegin(); it != m_values.cend(); ++it)
        settings.setValue(it.key(), it.value());
    settings.endGroup();
    settings.sync();
    if (settings.status() != QSettings::NoError)
        return Unexpected(QStringLiteral("Cannot write %1.").arg(QDir::toNativeSeparators(file)));
    return {};
}

} // namespace csm
