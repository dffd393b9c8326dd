#pragma once

#include <QDateTime>
#include <QList>

namespace csm {

// Which stretch of the history an activity report covers, and how it is cut: the runs started
// in [from, before), counted per interval. Intervals are `bucketMs` long from `from`, or start
// at `starts` when given (local midnights: a day that changes the clock has 23 or 25 hours).
struct ActivityQuery
{
    QDateTime from;
    QDateTime before;
    qint64 bucketMs = 3'600'000; // the intervals' length, nominal when `starts` is given
    QList<QDateTime> starts;     // empty, or the start of each interval, `from` first

    // How many intervals the stretch holds (the last one may be cut short by `before`).
    int bucketCount() const
    {
        if (!starts.isEmpty())
            return int(starts.size());
        if (!from.isValid() || !before.isValid() || bucketMs <= 0 || before <= from)
            return 0;
        return int((from.msecsTo(before) + bucketMs - 1) / bucketMs);
    }
    // Where interval `bucket` starts; bucketCount() gives `before`, where the last one ends.
    QDateTime bucketStart(int bucket) const
    {
        if (bucket >= bucketCount())
            return before;
        return starts.isEmpty() ? from.addMSecs(qint64(bucket) * bucketMs) : starts.at(bucket);
    }
};

} // namespace csm
