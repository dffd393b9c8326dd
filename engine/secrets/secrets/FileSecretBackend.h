#pragma once

#include "core/Expected.h"
#include "secrets/SecretBackend.h"
#include "secrets/SecretsJsonFile.h"

#include <QMap>

namespace csm {

// Secret values in `secrets-values.json` in the data folder, separate from the index: the
// fallback when no keychain exists or when the user asks for it. The file is written atomically
// with mode 0600 in a folder kept at 0700, and is refused when other users can access it. The
// values are base64 in the file so that any byte survives JSON; that is encoding, not
// protection: the file's mode is the protection.
//
// Every operation reads the file afresh, so a GUI and a server sharing the folder see each
// other's changes; the last writer wins.
class FileSecretBackend final : public SecretBackend
{
    Q_OBJECT

public:
    static constexpr int kFormatVersion = 1;

    explicit FileSecretBackend(QString dataDir, QObject* parent = nullptr);

    static QString fileName() { return QStringLiteral("secrets-values.json"); }
    QString filePath() const;

    QString kind() const override { return kFileKind; }
    void isAvailable(AvailabilityDone done) override;
    void readValue(const QString& name, ValueDone done) override;
    void writeValue(const QString& name, const QByteArray& value, Done done) override;
    void removeValue(const QString& name, Done done) override;

private:
    using Values = QMap<QString, QByteArray>;

    SecretsJsonFile file() const;
    Expected<Values> load() const;
    Expected<void> save(const Values& values) const;
    // Calls `function` from the event loop, as the SecretBackend contract asks.
    void post(std::function<void()> function);

    QString m_dataDir;
};

} // namespace csm
