#pragma once

#include "server/ServerStatus.h"
#include "ui/models/KeyedTableModel.h"

namespace csm {

// The embedded server's live interpreter sessions (run_*_code's `session`): whose, what
// language, how many cells, the memory they hold and how long they have been idle.
class InterpreterSessionsModel final : public KeyedTableModel<ServerStatus::InterpreterSession>
{
    Q_OBJECT

public:
    enum Column
    {
        Name,
        Client,
        Language,
        Cells,
        Memory,
        Idle,
        Started,
        ColumnCount,
    };

    explicit InterpreterSessionsModel(QObject* parent = nullptr);

    // Rows are matched by key (the session's container).
    void setSessions(const QList<ServerStatus::InterpreterSession>& sessions) { setRows(sessions); }
    // The idle and age columns count on from wall-clock times: call this to show them as of now.
    void refreshTimes();

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // "42 s", "3 min", "2 h 5 min".
    static QString durationText(qint64 ms);

protected:
    bool sameRow(const ServerStatus::InterpreterSession& a,
                 const ServerStatus::InterpreterSession& b) const override;
};

} // namespace csm
