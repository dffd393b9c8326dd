#pragma once

#include <QDateTime>
#include <QtGlobal>
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
#include <QTimeZone>
#endif

namespace csm {

// A moment since the epoch as a UTC date-time (Qt::UTC), on Debian 12's Qt 6.4 and Debian 13's
// Qt 6.8 alike. Qt 6.8 deprecates the Qt::TimeSpec argument that 6.4 has; QTimeZone::UTC, which
// replaces it, came with 6.5. (Going through local time and toUTC() would do on both, but at a
// time zone lookup a row where the history reads thousands.)
inline QDateTime utcFromMSecsSinceEpoch(qint64 msecs)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    return QDateTime::fromMSecsSinceEpoch(msecs, QTimeZone::UTC);
#else
    return QDateTime::fromMSecsSinceEpoch(msecs, Qt::UTC);
#endif
}

// A date and a time of day in UTC, as a UTC date-time: the same on both Qt versions.
inline QDateTime utcDateTime(QDate date, QTime time)
{
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    return QDateTime(date, time, QTimeZone::UTC);
#else
    return QDateTime(date, time, Qt::UTC);
#endif
}

} // namespace csm
