#pragma once

#include <QByteArray>
#include <QByteArrayMatcher>
#include <QList>
#include <QPair>
#include <QString>

namespace csm {

// Replaces secret values in output with `[secret:NAME]` before it leaves the server (the tool
// result, the history, the logs). Built once from the resolved pass-through secrets; immutable
// and so safe to share between threads.
//
// Rules:
// - values shorter than kMinimumLength bytes are left alone;
// - an occurrence inside a longer one belongs to the longer one (longest values first), and
//   occurrences of different values that overlap are hidden together, one marker per value, so
//   that no byte of either survives;
// - matching is on bytes (UTF-8 for QString), on complete outputs: a value split across two
//   chunks of a stream, or transformed by the program (base64, reversed...), is not found.
//   Redact raw stdout/stderr before they are escaped into JSON.
class SecretRedactor final
{
public:
    // Shorter values would mangle ordinary output: a secret "abc" or "42" would turn every word
    // and number containing it into a marker, and hiding them protects little anyway.
    static constexpr qsizetype kMinimumLength = 4;
    // A line of a multi-line value is redacted alone too, when it is at least this long.
    static constexpr qsizetype kMinimumLineLength = 8;

    SecretRedactor() = default;
    // (name, value) pairs, as SecretStore::resolvePassThrough() returns them.
    explicit SecretRedactor(const QList<QPair<QString, QByteArray>>& secrets);

    // No value long enough to redact: redact() returns its input unchanged.
    bool isEmpty() const { return m_entries.isEmpty(); }

    // Linear in the output's size for each value (Boyer-Moore search): a 1 MiB output with a
    // few dozen secrets takes milliseconds. Returns the input itself (no copy) when nothing
    // matched.
    QByteArray redact(const QByteArray& text) const;
    QString redact(const QString& text) const;
    // Whether `bytes` hold any value (what redact() would replace).
    bool findsAnyIn(const QByteArray& bytes) const;
    // The longest value's length (0 when empty): a stream searched in chunks overlaps them by
    // one byte less, so that no value is split unseen.
    qsizetype longestValueLength() const;
    // How many bytes at the end of `text` are the start of a value, the rest of which may be
    // still to come (a stream read while it is written): the longest such end, 0 for none. A
    // live view holds them back, or it would show most of a secret printed in two writes.
    qsizetype unfinishedValueLength(const QByteArray& text) const;

    static QByteArray marker(const QString& name);

private:
    struct Entry
    {
        QByteArray marker;
        QByteArrayMatcher matcher;
        qsizetype length = 0;
    };

    QByteArray redactBytes(const QByteArray& text, bool* changed) const;

    QList<Entry> m_entries; // longest value first
};

} // namespace csm
