#include "secrets/SecretRedactor.h"

#include <algorithm>

namespace csm {

namespace {

struct Match
{
    qsizetype start = 0;
    qsizetype end = 0;
    qsizetype entry = 0; // index in m_entries: longer values have smaller indexes
};

} // namespace

SecretRedactor::SecretRedactor(const QList<QPair<QString, QByteArray>>& secrets)
{
    QList<QPair<QString, QByteArray>> sorted;
    for (const auto& secret : secrets) {
        if (secret.second.size() >= kMinimumLength)
            sorted.append(secret);
    }
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        if (a.second.size() != b.second.size())
            return a.second.size() > b.second.size();
        return a.first < b.first;
    });
    // Each line of a multi-line value too (a PEM key printed line by line, or one line of it
    // as a progress message); long enough lines only, as for values.
    const QList<QPair<QString, QByteArray>> whole = sorted; // sorted grows below
    for (const auto& [name, value] : whole) {
        if (!value.contains('\n'))
            continue;
        for (QByteArray line : value.split('\n')) {
            if (line.endsWith('\r'))
                line.chop(1);
            if (line.size() >= kMinimumLineLength && line != value)
                sorted.append({name, line});
        }
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
        return a.second.size() > b.second.size();
    });
    for (const auto& [name, value] : sorted)
        m_entries.append(Entry{marker(name), QByteArrayMatcher(value), value.size()});
}

QByteArray SecretRedactor::marker(const QString& name)
{
    return QByteArrayLiteral("[secret:") + name.toUtf8() + ']';
}

QByteArray SecretRedactor::redact(const QByteArray& text) const
{
    bool changed = false;
    return redactBytes(text, &changed);
}

QString SecretRedactor::redact(const QString& text) const
{
    if (m_entries.isEmpty() || text.isEmpty())
        return text;
    bool changed = false;
    const QByteArray redacted = redactBytes(text.toUtf8(), &changed);
    // Untouched text is returned as is: a round trip through UTF-8 would replace lone
    // surrogates.
    return changed ? QString::fromUtf8(redacted) : text;
}

bool SecretRedactor::findsAnyIn(const QByteArray& bytes) const
{
    return std::any_of(m_entries.cbegin(), m_entries.cend(),
                       [&bytes](const Entry& entry) { return entry.matcher.indexIn(bytes) >= 0; });
}

qsizetype SecretRedactor::longestValueLength() const
{
    return m_entries.isEmpty() ? 0 : m_entries.constFirst().length;
}

qsizetype SecretRedactor::unfinishedValueLength(const QByteArray& text) const
{
    qsizetype longest = 0;
    for (const Entry& entry : m_entries) {
        const QByteArray value = entry.matcher.pattern();
        for (qsizetype length = std::min(entry.length - 1, text.size()); length > longest;
             --length) {
            if (text.endsWith(QByteArrayView(value).first(length))) {
                longest = length;
                break;
            }
        }
    }
    return longest;
}

QByteArray SecretRedactor::redactBytes(const QByteArray& text, bool* changed) const
{
    *changed = false;
    if (m_entries.isEmpty() || text.isEmpty())
        return text;

    // Every occurrence of every value in the original text: searching the text once per value
    // rather than replacing value after value keeps a marker from being matched by a later,
    // shorter value, and lets overlaps between values be seen.
    QList<Match> matches;
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        const Entry& entry = m_entries.at(i);
        for (qsizetype at = entry.matcher.indexIn(text); at >= 0;
             at = entry.matcher.indexIn(text, at + entry.length))
            matches.append(Match{at, at + entry.length, i});
    }
    if (matches.isEmpty())
        return text;
    std::sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) {
        if (a.start != b.start)
            return a.start < b.start;
        if (a.end != b.end)
            return a.end > b.end;
        return a.entry < b.entry;
    });

    QByteArray result;
    result.reserve(text.size());
    qsizetype copied = 0;
    for (qsizetype i = 0; i < matches.size();) {
        // A region: matches that overlap one another, directly or through others.
        qsizetype regionEnd = matches.at(i).end;
        qsizetype coveredEnd = matches.at(i).start;
        qsizetype lastEntry = -1;
        result.append(QByteArrayView(text).sliced(copied, matches.at(i).start - copied));
        for (; i < matches.size() && matches.at(i).start < regionEnd; ++i) {
            const Match& match = matches.at(i);
            // Inside a match already written (same start and longer, or earlier and reaching
            // further): part of that value.
            if (match.end <= coveredEnd)
                continue;
            if (match.entry != lastEntry)
                result.append(m_entries.at(match.entry).marker);
            lastEntry = match.entry;
            coveredEnd = match.end;
            regionEnd = std::max(regionEnd, match.end);
        }
        copied = regionEnd;
    }
    result.append(QByteArrayView(text).sliced(copied));
    *changed = true;
    return result;
}

} // namespace csm
