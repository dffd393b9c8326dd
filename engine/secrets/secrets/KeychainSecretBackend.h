#pragma once

#include "secrets/SecretBackend.h"

namespace csm {

// Secret values in the OS keychain through QtKeychain (the Secret Service over D-Bus on Linux:
// gnome-keyring, KeePassXC...), one entry per secret under the service "code-sandbox" with the
// secret's name as key. QtKeychain's plaintext fallback stays off: when there is no keychain
// the store says so and the user chooses the file backend knowingly.
//
// The jobs talk to D-Bus through the GLib main loop that Qt's event dispatcher runs, so this
// backend must live on a thread with a running Qt event loop (the main thread in practice).
class KeychainSecretBackend final : public SecretBackend
{
    Q_OBJECT

public:
    static constexpr QLatin1String kService{"code-sandbox"};
    // How long the availability probe waits for the Secret Service: D-Bus activation of a
    // keyring daemon takes well under a second, and a server start should not hang on it.
    static constexpr int kProbeTimeoutMs = 10000;

    explicit KeychainSecretBackend(QObject* parent = nullptr);

    QString kind() const override { return kKeychainKind; }
    // Reads an entry no secret can have (its key is not a valid name): "not found" means the
    // keychain answered.
    void isAvailable(AvailabilityDone done) override;
    void readValue(const QString& name, ValueDone done) override;
    void writeValue(const QString& name, const QByteArray& value, Done done) override;
    void removeValue(const QString& name, Done done) override;

    // The first words of the error when no keychain can be reached; the store and the tests
    // recognise it.
    static QString noServiceMessage();
    // A QtKeychain error (`code` is a QKeychain::Error) as a sentence for the user. `name` is the
    // secret concerned, empty for the probe.
    static QString describeError(int code, const QString& detail, const QString& name);
};

} // namespace csm
