#pragma once

#include "core/Expected.h"
#include "core/PrivateFiles.h"

#include <QJsonObject>
#include <QString>

namespace csm {

// One of the secrets' JSON files (the index, the values file): an object with a "version"
// member, written atomically with mode 0600. Both files read, write and name themselves in
// their messages the same way through this.
class SecretsJsonFile final
{
public:
    // `description` names the file in messages: "the secrets index".
    SecretsJsonFile(QString folder, const QString& fileName, QString description,
                    int formatVersion);

    QString path() const { return m_path; }

    // The file's object; an empty one when there is no file.
    Expected<QJsonObject> read() const;
    // "cannot read <description> <path>: <reason>": what read() reports, for the callers to
    // report what they find wrong in the content the same way.
    Unexpected unreadable(const QString& reason) const;
    // Replaces the file by `content` with its version, after making sure of the folder.
    Expected<void> write(QJsonObject content, PrivateFiles::FolderMode folderMode) const;

private:
    QString m_folder;
    QString m_path;
    QString m_description;
    int m_formatVersion;
};

} // namespace csm
