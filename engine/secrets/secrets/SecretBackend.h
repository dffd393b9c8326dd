#pragma once

#include <QByteArray>
#include <QLatin1String>
#include <QObject>
#include <QString>

#include <functional>

namespace csm {

// Where secret values live: the OS keychain or a private file. Asynchronous because keychains
// are (a Secret Service call may even wait for the user to unlock the keyring).
//
// Contract shared by every implementation:
// - each callback is called exactly once, later, from the event loop of the backend's thread,
//   never from inside the call that started the operation;
// - an empty `error` means success; otherwise it is a sentence for the user that names the
//   secret or file concerned and never contains a value;
// - a callback is dropped if the backend is destroyed first.
class SecretBackend : public QObject
{
    Q_OBJECT

public:
    static constexpr QLatin1String kKeychainKind{"keychain"};
    static constexpr QLatin1String kFileKind{"file"};

    using Done = std::function<void(const QString& error)>;
    using ValueDone = std::function<void(const QByteArray& value, const QString& error)>;
    using AvailabilityDone = std::function<void(bool available, const QString& reason)>;

    using QObject::QObject;

    // kKeychainKind or kFileKind; recorded in the index next to the names.
    virtual QString kind() const = 0;
    // Whether values can be stored here now; `reason` says why not (or what was found).
    virtual void isAvailable(AvailabilityDone done) = 0;
    virtual void readValue(const QString& name, ValueDone done) = 0;
    // Creates or replaces.
    virtual void writeValue(const QString& name, const QByteArray& value, Done done) = 0;
    // Removing a value that is not there succeeds: the outcome is the same.
    virtual void removeValue(const QString& name, Done done) = 0;
};

} // namespace csm
