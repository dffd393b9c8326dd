#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace csm {

// Secret environment variables for a container, as (name, value) pairs: the values reach the
// engine client's environment and the container by name only. The runtime layer knows no more of
// secrets than this; redaction belongs to the sandbox's SandboxSecrets above it.
using SecretVariables = QList<QPair<QString, QByteArray>>;

} // namespace csm
