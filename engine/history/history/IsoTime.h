#pragma once

#include <QDateTime>
#include <QJsonValue>
#include <QString>

namespace csm {

// How the exports write a moment: ISO 8601 in UTC with milliseconds ("2026-12-07T10:15:57.123Z"),
// which spreadsheets, jq and Python's fromisoformat all read; nothing for a moment not known.
inline QString isoTime(const QDateTime& time)
{
    return time.isValid() ? time.toUTC().toString(Qt::ISODateWithMs) : QString();
}

// The same in JSON, where a moment not known is null rather than an empty string.
inline QJsonValue isoTimeOrNull(const QDateTime& time)
{
    return time.isValid() ? QJsonValue(isoTime(time)) : QJsonValue(QJsonValue::Null);
}

} // namespace csm
