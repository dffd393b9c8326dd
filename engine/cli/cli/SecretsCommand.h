#pragma once

#include "cli/Command.h"
#include "core/Expected.h"
#include "secrets/SecretInfo.h"

#include <memory>
#include <optional>

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
// Exits with Failed when there is no such secret, or the store cannot be read, opened or written.
//
// Asynchronous because the secret store is (the keychain answers through the event loop): call
// start() and wait for finished().
class SecretsCommand final : public Command
{
    Q_OBJECT

public:
    // `arguments`: what follows `secrets` on the command line. `out` gets the results, `err`
    // the errors and hints; `input` gives the value of `set`. All three must outlive the command.
    SecretsCommand(QStringList arguments, const QProcessEnvironment& environment, QTextStream& out,
                   QTextStream& err, SecretInput& input, QObject* parent = nullptr);
    ~SecretsCommand() override;

private:
    struct Invocation;
    struct SetRequest;

    Syntax syntax() const override;
    void run() override;

    // What the command line asks for; nothing, having refused it, when it is not usable.
    std::optional<Invocation> readInvocation();
    // What is wrong with the positional arguments (NAME, on|off); empty when nothing is.
    QString argumentsProblem() const;
    void set(const Invocation& invocation);
    void reportStored(const SetRequest& request);
    void list(const Invocation& invocation);
    void remove(const Invocation& invocation);
    void passThrough(const Invocation& invocation);

    // The value for `set`, from a hidden prompt (asked twice) or all of a piped stdin less one
    // line ending. Fails when there is no usable value.
    Expected<QByteArray> readValue(const QString& name);
    // Index entry of `name`, nothing when there is none. Fails when the index cannot be read.
    Expected<std::optional<SecretInfo>> find(const QString& name) const;

    const QCommandLineOption m_dataDir;
    const QCommandLineOption m_secretsFile;
    const QCommandLineOption m_passThroughOn;
    const QCommandLineOption m_passThroughOff;
    SecretInput& m_input;
    std::unique_ptr<SecretStore> m_store;
};

} // namespace csm
