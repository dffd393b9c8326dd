#include "sandbox/LiveOutputTail.h"

#include "secrets/SecretRedactor.h"

#include <algorithm>

namespace csm {

namespace {
// How far past the cut a tail looks for the start of a line before it settles for a cut line.
constexpr qsizetype kLineSearchBytes = 1024;

bool isUtf8Continuation(char byte)
{
    return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}
} // namespace

QString LiveOutputTail::of(const QByteArray& printedSoFar, const SecretRedactor& redactor,
                           qsizetype maxBytes)
{
    const qsizetype unfinished = redactor.unfinishedValueLength(printedSoFar);
    const QByteArray printed = unfinished > 0 ? printedSoFar.chopped(unfinished) : printedSoFar;
    if (printed.size() <= maxBytes)
        return QString::fromUtf8(redactor.redact(printed));
    const qsizetype overlap = redactor.longestValueLength();
    const QByteArray window = printed.right(maxBytes + overlap);
    const QByteArray redacted = redactor.redact(window);
    // Everything up to `overlap` bytes in may be the end of a secret that began before the cut.
    qsizetype start = std::min(overlap, redacted.size());
    const qsizetype newline = redacted.indexOf('\n', start);
    if (newline >= 0 && newline - start < kLineSearchBytes)
        start = newline + 1;
    while (start < redacted.size() && isUtf8Continuation(redacted.at(start)))
        ++start;
    // About: a secret's marker is not as long as the secret.
    const qsizetype omitted = printed.size() - window.size() + start;
    return QStringLiteral("[… %1 earlier bytes not shown while the run goes on]\n").arg(omitted) +
           QString::fromUtf8(redacted.mid(start));
}

} // namespace csm
