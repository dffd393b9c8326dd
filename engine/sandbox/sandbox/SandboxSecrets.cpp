#include "sandbox/SandboxSecrets.h"

#include <QStringList>

#include <algorithm>

namespace csm {

SandboxSecrets::SandboxSecrets(Variables variables)
    : m_variables(std::move(variables))
    , m_redactor(m_variables)
{}

std::shared_ptr<const SandboxSecrets> SandboxSecrets::make(const Variables& variables)
{
    Variables unique;
    for (const auto& variable : variables) {
        const bool seen = std::any_of(unique.cbegin(), unique.cend(), [&](const auto& kept) {
            return kept.first == variable.first;
        });
        if (!seen)
            unique.append(variable);
    }
    std::sort(unique.begin(), unique.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return std::shared_ptr<const SandboxSecrets>(new SandboxSecrets(std::move(unique)));
}

std::shared_ptr<const SandboxSecrets> SandboxSecrets::none()
{
    static const std::shared_ptr<const SandboxSecrets> empty = make({});
    return empty;
}

ExecutionResult SandboxSecrets::redacted(const ExecutionResult& result) const
{
    if (m_redactor.isEmpty())
        return result;
    ExecutionResult safe = result;
    // Output cut at its cap may end inside a value: that beginning is dropped, not shown.
    const auto redactStream = [this](QByteArray bytes, bool truncated) {
        if (truncated)
            bytes.chop(m_redactor.unfinishedValueLength(bytes));
        return m_redactor.redact(bytes);
    };
    safe.stdoutBytes = redactStream(result.stdoutBytes, result.stdoutTruncated);
    safe.stderrBytes = redactStream(result.stderrBytes, result.stderrTruncated);
    safe.engineError = m_redactor.redact(result.engineError);
    // The program names the hosts: a secret sent as a host name must not come back in a record.
    for (EgressConnection& connection : safe.connections) {
        connection.host = m_redactor.redact(connection.host);
        connection.reason = m_redactor.redact(connection.reason);
    }
    return safe;
}

QStringList SandboxSecrets::names() const
{
    QStringList names;
    names.reserve(m_variables.size());
    for (const auto& variable : m_variables)
        names << variable.first;
    return names;
}

} // namespace csm
