#pragma once

#include "core/Expected.h"
#include "secrets/SecretInfo.h"
#include "secrets/SecretsJsonFile.h"

#include <QList>
#include <QString>

#include <optional>

namespace csm {

// The non-secret half of the secrets: names, pass-through flags, update times and which backend
// holds the values, in `secrets.json` in the data folder. It never holds a value, so it can be
// read, backed up and shown freely; it is still written with mode 0600 because the names alone
// tell what a user has credentials for.
//
// A plain value type: load() reads the file, save() writes it atomically (QSaveFile), nothing
// is cached between the two. Callers do load, change, save.
class SecretIndex final
{
public:
    static constexpr int kFormatVersion = 1;

    explicit SecretIndex(QString dataDir);

    static QString fileName() { return QStringLiteral("secrets.json"); }
    QString filePath() const;

    // Reads the file; a missing file is an empty index. On failure the index is left empty and
    // the error says what is wrong with which file.
    Expected<void> load();
    // Writes the file atomically with mode 0600, creating the data folder (0700) if needed.
    Expected<void> save() const;

    // "keychain" or "file": where the values of these secrets live; empty for a new index.
    QString backendKind() const { return m_backendKind; }
    void setBackendKind(const QString& kind) { m_backendKind = kind; }

    // Sorted by name.
    QList<SecretInfo> secrets() const { return m_secrets; }
    bool isEmpty() const { return m_secrets.isEmpty(); }
    std::optional<SecretInfo> find(const QString& name) const;
    // Adds `info`, or replaces the entry of the same name.
    void upsert(const SecretInfo& info);
    // False when there was no such entry.
    bool remove(const QString& name);

private:
    SecretsJsonFile file() const;

    QString m_dataDir;
    QString m_backendKind;
    QList<SecretInfo> m_secrets;
};

} // namespace csm
