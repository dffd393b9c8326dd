#pragma once

#include <QByteArray>
#include <QString>

namespace csm {

class SecretRedactor;

// What a live view shows of a stream a program is still printing: its last `maxBytes`, redacted,
// starting at a line. A secret is never shown in part, wherever it is cut: at the start, the
// tail is redacted with as many bytes before it as the longest secret has, and those bytes are
// dropped after redaction (with the rest of the line they start); at the end, bytes that begin
// a secret whose rest has not been printed yet are held back until it has (or the run ends).
class LiveOutputTail final
{
public:
    // The most of each stream a live view gets: enough for a screen of the latest lines, little
    // enough to write a few times a second.
    static constexpr qsizetype kDefaultMaxBytes = 64 * 1024;

    // `printed`: the whole stream so far. The result is valid UTF-8; it starts with a note
    // saying what was left out when it is not the whole stream.
    static QString of(const QByteArray& printed, const SecretRedactor& redactor,
                      qsizetype maxBytes = kDefaultMaxBytes);
};

} // namespace csm
