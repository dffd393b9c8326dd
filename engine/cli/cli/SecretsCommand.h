#pragma once

#include "secrets/SecretInfo.h"

#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>

#include <memory>
#include <optional>

class QTextStream;

namespace csm {

class SecretInput;
class SecretStore;

// `code-sandbox-mcp secrets ...`: the named secrets that servers give to their sandboxes.
//   set NAME [--pass-through|--no-pass-through]   the value from stdin or a hidden prompt
//   list [--json]                                  names, flags, update times; never a value
//   rm NAME
//   pass-through NAME on|off
// Each takes --data-dir DIR (else $CODE_SANDBOX_DATA_DIR, else the default folder, the one of
// the run history), --secrets-file (values in a private file instead of the keychain) and
// --help. A value is never read from the command line, where shell history and `ps` would keep
// it, and never printed.
//
// Asynchronous because the secret store is (the keychain answers through the event loop): call
// start() and wait for finished().
class SecretsCommand final : public QObject
{
    Q_OBJECT

public:
    enum ExitCode
    {
        Ok = 0,
        Failed = 1, // no such secret, or the store cannot be read, opened or written
        Usage = 2,
    };

    // `arguments`: what follows `secrets` on the command line. `out` gets the results, `err`
    // the errors and hints; `input` gives the value of `set`. All three must outlive the command.
    SecretsCommand(QStringList arguments, const QProcessEnvironment& environment, QTextStream& out,
                   QTextStream& err, SecretInput& input, QObject* parent = nullptr);
    ~SecretsCommand() override;

    // Runs the command once. finished() follows exactly once, from the event loop, never from
    // inside this call.
    void start();

Q_SIGNALS:
    void finished(int exitCode);

private:
    struct Invocation;
    struct SetRequest;

    void set(const Invocation& invocation);
    void reportStored(const SetRequest& request);
    void list(const Invocation& invocation);
    void remove(const Invocation& invocation);
    void passThrough(const Invocation& invocation);

    // The value for `set`, from a hidden prompt (asked twice) or all of a piped stdin less one
    // line ending. Nothing, with `error` set, when there is no usable value.
    std::optional<QByteArray> readValue(const QString& name, QString* error);
    // Index entry of `name`; `error` is set when the index cannot be read.
    std::optional<SecretInfo> find(const QString& name, QString* error) const;

    void usageError(const QString& message);
    void fail(const QString& message);
    void finish(int exitCode);

    QStringList m_arguments;
    QProcessEnvironment m_environment;
    QTextStream& m_out;
    QTextStream& m_err;
    SecretInput& m_input;
    QString m_command; // "set", "list"...: the first argument
    std::unique_ptr<SecretStore> m_store;
    bool m_started = false;
};

} // namespace csm
