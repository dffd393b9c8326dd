#pragma once

#include "history/HistoryMigration.h"

#include <QList>

namespace csm {

// The history database's schema, as the list of steps that build it from an empty file.
// To change the schema, append a step: never edit one that has shipped, since databases out
// there already went through it.
class HistorySchema final
{
public:
    // Marks the file as ours (`PRAGMA application_id`, "CSMH"), so that a path pointing at some
    // other program's SQLite database is refused instead of being altered.
    static constexpr int kApplicationId = 0x43534D48;

    static const QList<HistoryMigration>& migrations();
    static int latestVersion();
};

} // namespace csm
