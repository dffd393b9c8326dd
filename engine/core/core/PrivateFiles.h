#pragma once

#include "core/Expected.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

// Private files for the secrets: folders 0700, files 0600, written atomically. Shared by the
// index and the file backend so that both apply the same rules.
namespace csm::PrivateFiles {

enum class FolderMode
{
    // Create the folder with mode 0700 if it is missing; leave an existing one alone.
    CreateOnly,
    // Also take group and world access away from an existing folder.
    Enforce,
};

Expected<void> ensurePrivateFolder(const QString& path, FolderMode mode);

// Replaces `path` atomically (QSaveFile) with a file of mode 0600 holding `data`. The mode is
// set before the first byte is written, so the content is never readable by others.
Expected<void> writePrivateFile(const QString& path, const QByteArray& data);

// Fails, naming the file and the fix, when group or others have any access to `path`. A missing
// file passes.
Expected<void> checkPrivateFile(const QString& path);

// Reads a JSON object file whose "version" member must be `formatVersion`. A missing file gives
// an empty object. The failure is the bare reason (the file cannot be opened, is not JSON or not
// an object, or has another version) for the caller to name the file in its message.
Expected<QJsonObject> readVersionedJson(const QString& path, int formatVersion);

// "0644": a file's permission bits as `ls -l` readers and chmod expect them.
QString octalMode(const QString& path);

} // namespace csm::PrivateFiles
