#pragma once

#include <QDateTime>

namespace csm {

// Which stretch of the history an activity report covers, and how it is cut: the runs started
// in [from, before), counted per interval of `bucketMs` starting at `from`.
struct ActivityQuery
{
    QDateTime from;
    QDateTime before;
    qint64 bucketMs = 3'600'000;

    // How many intervals the stretch holds (the last one may be cut short by `before`).
    int bucketCount() const
    {
        if (!from.isValid() || !before.isValid() || bucketMs <= 0 || before <= from)
            return 0;
        return int((from.msecsTo(before) + bucketMs - 1) / bucketMs);
    }
    QDateTime bucketStart(int bucket) const { return from.addMSecs(qint64(bucket) * bucketMs); }
};

} // namespace csm
