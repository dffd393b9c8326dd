#pragma once

#include <QString>

namespace csm {

// A history as a busy user's months would leave it, for the benchmarks of the views over it:
// written in one bulk transaction through a raw QtSql connection.
class BenchHistory final
{
public:
    // Appears in the code of one run in a thousand.
    static inline const QString kRareWord = QStringLiteral("zebra_needle");
    // The client of one run in a thousand.
    static inline const QString kRareClient = QStringLiteral("rare-client");

    // Fills `path` (a history HistoryStore created) with `runs` ended runs, oldest first,
    // started evenly over the last `days` days: a few big clients and a long tail, 85% ok,
    // typical assistant snippets and outputs.
    static bool fill(const QString& path, int runs, int days, QString* error);
};

} // namespace csm
