#pragma once

#include "secrets/SecretRedactor.h"

namespace csm {

// Keeps secret values out of every log line of the process, whoever writes it (our categories,
// Qt's own warnings, a qFatal on the way down): a Qt message handler, in front of the one that
// was installed before, that redacts each message with the secrets in force.
class LogRedaction final
{
public:
    // Idempotent. Install it before the first secret is resolved.
    static void install();
    // The secrets in force from now on; safe from any thread.
    static void setRedactor(const SecretRedactor& redactor);
    // What a message becomes (for tests).
    static QString redact(const QString& message);
};

} // namespace csm
