#pragma once

#include <QDateTime>
#include <QString>

namespace csm {

// A persistent session as the history knows it: the calls recorded with its key (its cells, and
// calls it refused).
struct HistoryInterpreterSession
{
    QString key; // RunRecord::sessionKey
    QString name;
    QString clientName;
    QString language;
    int calls = 0;
    QDateTime firstStartedAt;
    QDateTime lastStartedAt;

    friend bool operator==(const HistoryInterpreterSession&,
                           const HistoryInterpreterSession&) = default;
};

} // namespace csm
