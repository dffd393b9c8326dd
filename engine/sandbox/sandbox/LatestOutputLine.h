#pragma once

#include <QByteArray>
#include <QString>

namespace csm {

class SecretRedactor;

// The last line a program printed, for progress messages: whichever of stdout and stderr wrote
// last, its last non-blank line (the unfinished one too), cleaned for display. Keeps only a
// short tail of the output, so a program that prints megabytes costs nothing here.
class LatestOutputLine final
{
public:
    // Longest line returned, in characters; the rest is cut with an ellipsis.
    static constexpr qsizetype kMaxCharacters = 200;

    void append(const QByteArray& bytes);
    // Empty until the program printed something other than whitespace. With `redactor`, the
    // secrets are redacted before the line is cut (a cut value would no longer match), and an
    // end that begins a value is held back.
    QString text(const SecretRedactor* redactor = nullptr) const;

private:
    QByteArray m_tail;
    bool m_cut = false; // older bytes were dropped from m_tail's front
};

} // namespace csm
