#pragma once

#include "core/Expected.h"
#include "secrets/SecretBackend.h"
#include "secrets/SecretInfo.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>

#include <functional>
#include <memory>

namespace csm {

class SecretIndex;

// Named secrets that sandboxes may use: the facade for the server, the CLI and the GUI.
//
// The names and flags live in the index (`secrets.json`, no values); the values live in one
// backend, the OS keychain or a private file, chosen by open(). Once an index holds secrets it
// is bound to the backend that holds their values: open() refuses a different one rather than
// lose them from sight.
//
// Threads and callbacks: use the store from one thread with a running Qt event loop (the
// keychain needs it). Every callback is called exactly once, later, from that event loop, never
// from inside the call; none is called after the store is destroyed. An empty `error` means
// success; errors are sentences for the user and never contain a value. Nothing here logs a
// value; names are logged.
class SecretStore final : public QObject
{
    Q_OBJECT

public:
    enum class BackendChoice
    {
        // The keychain when a Secret Service answers, else the file (said in the log and in
        // backendChosen()). An index already bound to a backend keeps it. A Secret Service that
        // answers but cannot store (locked, or no keyring yet on a headless account) is still
        // chosen: set() then fails with a message that says so and suggests --secrets-file.
        Auto,
        Keychain,
        // Asked for by the user (--secrets-file): values in a 0600 file in the data folder.
        File,
    };

    using Done = SecretBackend::Done;
    using ValueDone = SecretBackend::ValueDone;
    using NamedValues = QList<QPair<QString, QByteArray>>;
    using ResolveDone = std::function<void(const NamedValues& values, const QString& error)>;

    // `dataDir` holds secrets.json (and secrets-values.json with the file backend); it is
    // created with mode 0700 when needed. Nothing is read before open().
    SecretStore(const QString& dataDir, BackendChoice choice, QObject* parent = nullptr);
    // For tests: stand-ins for the two backends (their kind() must be "keychain" and "file").
    SecretStore(QString dataDir, BackendChoice choice, std::unique_ptr<SecretBackend> keychain,
                std::unique_ptr<SecretBackend> file, QObject* parent = nullptr);
    ~SecretStore() override;

    // `<GenericDataLocation>/code-sandbox`, beside the run history.
    static QString defaultDataDir();

    // Reads the index and chooses the backend (Auto probes the Secret Service, up to
    // KeychainSecretBackend::kProbeTimeoutMs). Emits backendChosen() and logs the choice before
    // `done`. set(), remove(), read() and resolvePassThrough() fail until it has succeeded.
    void open(Done done);
    bool isOpen() const { return m_backend != nullptr; }
    // "keychain" or "file" once open, else empty.
    QString backendKind() const;
    // Why that backend, for the user: e.g. "no Secret Service: run with --secrets-file or install
    // gnome-keyring (Could not connect: ...); the values file is
    // /home/u/.local/share/code-sandbox/secrets-values.json, mode 0600".
    QString backendReason() const { return m_backendReason; }
    QString dataDir() const { return m_dataDir; }

    // The secrets, sorted by name, from the index on disk (so it sees changes made by another
    // process). No values. Fails on a broken index.
    Expected<QList<SecretInfo>> list() const;

    // Stores `value` under `name` (created or replaced) and records it in the index. The name
    // must be valid (SecretInfo::isValidName); the value must be non-empty and hold no NUL byte
    // (it becomes an environment variable).
    void set(const QString& name, const QByteArray& value, bool passThrough, Done done);
    // Removes the value, then the index entry.
    void remove(const QString& name, Done done);
    // Only the index changes; works before open().
    void setPassThrough(const QString& name, bool passThrough, Done done);
    // One value, for a "show" or "copy" action.
    void read(const QString& name, ValueDone done);
    // The value of every pass-through secret, sorted by name, for the server to put into its
    // sandboxes' environment (and into a SecretRedactor). All or nothing: if any value cannot be
    // read, `values` is empty and `error` names each failure.
    void resolvePassThrough(ResolveDone done);

Q_SIGNALS:
    // After open() has chosen: `kind` is "keychain" or "file".
    void backendChosen(const QString& kind, const QString& reason);
    // After set(), remove() or setPassThrough() changed the index.
    void secretsChanged();

private:
    void choose(SecretBackend* backend, const QString& reason, Done done);
    void fail(Done done, const QString& error);
    // The same, for a failed open(): another open() may be tried.
    void failOpen(Done done, const QString& error);
    void post(std::function<void()> function);
    QString checkOpen() const;
    // Fails unless the store is open and the index lists `name`.
    Expected<void> checkListed(const QString& name) const;
    // Loads the index, applies `change` and saves; stops at the first failure.
    Expected<void> updateIndex(const std::function<Expected<void>(SecretIndex&)>& change);

    QString m_dataDir;
    BackendChoice m_choice;
    std::unique_ptr<SecretBackend> m_keychain;
    std::unique_ptr<SecretBackend> m_file;
    SecretBackend* m_backend = nullptr; // one of the two, once open
    QString m_backendReason;
    bool m_opening = false;
};

} // namespace csm
