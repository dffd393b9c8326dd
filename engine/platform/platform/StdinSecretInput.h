#pragma once

#include "platform/SecretInput.h"

namespace csm {

// The process's standard input as a SecretInput. On a terminal the hidden prompt goes to stderr
// and the terminal's echo is turned off while the line is read (termios on POSIX, the console
// mode on Windows); it is put back afterwards, also when the process is interrupted meanwhile.
class StdinSecretInput final : public SecretInput
{
public:
    // The most readAll() takes: far more than any credential, far less than a mistaken
    // `< /dev/urandom`.
    static constexpr qsizetype kMaxBytes = qsizetype{1024} * 1024;

    bool isInteractive() const override;
    Expected<QByteArray> readAll() override;
    Expected<QByteArray> readHidden(const QString& prompt) override;
};

} // namespace csm
