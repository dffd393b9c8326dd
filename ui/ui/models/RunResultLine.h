#pragma once

#include <QDateTime>
#include <QString>

namespace csm {

struct RunRecord;

// What became of a run, in plain words, for the top of its detail: "Ran out of memory
// (512 MiB) after 21.9 s", "Failed with exit code 1 after 0.4 s: ZeroDivisionError: division
// by zero", "Timed out at its 30 s limit"; and what its network did when something was
// refused: "2 connections refused: 169.254.169.254 is link-local".
class RunResultLine final
{
public:
    // `run` loaded in full (its limits, Stderr and connections); `now` for a run still going.
    static QString of(const RunRecord& run, const QDateTime& now);
    // Empty when nothing was refused.
    static QString network(const RunRecord& run);
    // 412 ms, 21.9 s, 30 s, 2 min 5 s.
    static QString duration(qint64 ms);
};

} // namespace csm
