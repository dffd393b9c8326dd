#pragma once

#include "core/Expected.h"

#include <QByteArray>
#include <QString>

namespace csm {

// Where a command-line tool reads a secret value from: never its arguments (they land in shell
// history and in `ps`), but its standard input, piped or typed at a hidden prompt. An interface
// so that the commands can be tested with scripted values; StdinSecretInput is the real one.
class SecretInput
{
public:
    SecretInput() = default;
    SecretInput(const SecretInput&) = delete;
    SecretInput& operator=(const SecretInput&) = delete;
    virtual ~SecretInput() = default;

    // True when the input is a terminal a person types at: then readHidden(), else readAll().
    virtual bool isInteractive() const = 0;
    // Everything up to the end of the input, as it is (no newline stripped). Fails when it
    // cannot be read.
    virtual Expected<QByteArray> readAll() = 0;
    // Shows `prompt`, reads one line without showing what is typed, and returns it without its
    // line ending. Fails at the end of the input or on a read error.
    virtual Expected<QByteArray> readHidden(const QString& prompt) = 0;
};

} // namespace csm
