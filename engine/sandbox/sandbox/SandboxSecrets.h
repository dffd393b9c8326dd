#pragma once

#include "runtime/SecretVariables.h"
#include "sandbox/ExecutionResult.h"
#include "secrets/SecretRedactor.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

#include <memory>

namespace csm {

// The secret environment variables a sandbox gets, and the redactor that hides their values in
// what leaves the server. One immutable snapshot per resolution of the secrets, shared by every
// container started under it: a run's output is redacted with the values its own container had,
// even when the secrets change while it runs.
class SandboxSecrets final
{
public:
    using Variables = SecretVariables;

    // `variables`: (name, value), e.g. from SecretStore::resolvePassThrough() and the server's own
    // environment; a name given twice keeps its first value.
    static std::shared_ptr<const SandboxSecrets> make(const Variables& variables);
    // No variables: what a server without pass-through secrets runs under.
    static std::shared_ptr<const SandboxSecrets> none();

    // Sorted by name, names unique.
    const Variables& variables() const { return m_variables; }
    QStringList names() const;
    const SecretRedactor& redactor() const { return m_redactor; }
    // `result` with every value replaced by its [secret:NAME] marker in stdout, stderr and the
    // engine's error message. Runs before the outputs are escaped into JSON or stored.
    ExecutionResult redacted(const ExecutionResult& result) const;
    // Same names and values.
    bool sameAs(const SandboxSecrets& other) const { return m_variables == other.m_variables; }

private:
    explicit SandboxSecrets(Variables variables);

    Variables m_variables;
    SecretRedactor m_redactor;
};

} // namespace csm
