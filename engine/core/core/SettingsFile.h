#pragma once

#include "core/Expected.h"

#include <QHash>
#include <QString>

namespace csm {

// settings.ini in the data folder: the file the desktop app writes and every server process of
// the user reads. One group per reader ("server" for what servers use, "desktop" for the app's
// own); values are text, checked by whoever reads them. Missing or unreadable file: no values.
class SettingsFile final
{
public:
    explicit SettingsFile(const QString& dataDir, const QString& group = QStringLiteral("server"));

    static QString path(const QString& dataDir);

    bool contains(const QString& key) const { return m_values.contains(key); }
    QString value(const QString& key) const { return m_values.value(key); }
    void setValue(const QString& key, const QString& value) { m_values.insert(key, value); }

    // Writes this group's values, keeping the other groups; the folder is created when missing.
    // Fails when the file cannot be written.
    Expected<void> save() const;

private:
    QString m_dataDir;
    QString m_group;
    QHash<QString, QString> m_values;
};

} // namespace csm
