#pragma once

#include "history/HistoryInterpreterSession.h"
#include "history/HistoryQuery.h"
#include "ui/models/RunsSelection.h"

#include <QDateTime>
#include <QList>
#include <QStringList>
#include <QTimer>
#include <QWidget>

class QComboBox;
class QLineEdit;

namespace csm {

class HistoryStore;
struct RunRecord;

// The Runs page's row of filters: text (code or output), status, language, client, time range
// and session. It keeps the client and session lists up to date with the history and says when
// the filter it stands for changed: at once for a choice, after a short pause for typing, and
// once for a change of several filters together (reset, showSelection).
class RunsFilterBar final : public QWidget
{
    Q_OBJECT

public:
    // How often the client and session lists are read again (a new client shows at once anyway
    // when one of its runs joins the table: noteRun).
    static constexpr int kListsRefreshMs = 10'000;
    // Typing applies once it pauses this long.
    static constexpr int kTypingDelayMs = 250;

    // The time filter's choices, in the order of its items.
    enum class TimeRange
    {
        Any,
        LastHour,
        Today,
        Last7Days,
        Last30Days,
        Custom, // a stretch another page asked for (showSelection)
    };

    explicit RunsFilterBar(HistoryStore& store, QWidget* parent = nullptr);

    // The filter the bar stands for. A time range is fixed when chosen: "last hour" keeps the
    // runs it showed until the filter changes.
    HistoryQuery query() const;
    // The session filter's session key; empty for any session.
    QString chosenSession() const;

    // Every filter cleared, then one changed() (Reset, and Escape in the text filter).
    void reset();
    // Only the cells of the session `key` (RunRecord::sessionKey), whatever the other filters
    // said.
    void showSession(const QString& key);
    // Only the runs of `selection` (a bar of the Activity page): its time, and its client or
    // status; the other filters are cleared.
    void showSelection(const RunsSelection& selection);
    // Puts the keyboard in the text filter, its text selected (Ctrl+F).
    void focusText();
    // Runs that joined the table: their clients and sessions join the lists if they are new
    // (each list read again at most once).
    void noteRuns(const QList<RunRecord>& runs);

Q_SIGNALS:
    void changed();

private:
    // The filters chosen from a list, in the order they stand (the text filter is the other).
    QList<QComboBox*> choices() const;
    // Reads the client names of the history again for the client filter.
    void refreshClients();
    // Reads the history's sessions again for the session filter.
    void refreshSessions();
    // Blocks (or unblocks) the filters' signals, to change several with one changed() after.
    void setQuiet(bool quiet);
    // The label of the time filter's Custom item for `selection`: "Dec 7, 14:00–15:00".
    static QString customRangeLabel(const RunsSelection& selection);

    HistoryStore& m_store;
    // Each filter beside what it lists or stands for.
    QLineEdit* m_text = nullptr;
    QComboBox* m_status = nullptr;
    QComboBox* m_language = nullptr;
    QComboBox* m_client = nullptr;
    QStringList m_clientNames; // as the history last named them
    QComboBox* m_time = nullptr;
    // The time filter's Custom item: the stretch it stands for.
    QDateTime m_customFrom;
    QDateTime m_customBefore;
    QComboBox* m_session = nullptr;
    QList<HistoryInterpreterSession> m_sessions; // as the history last listed them
    QTimer m_typingDelay;
    QTimer m_listsRefresh;
};

} // namespace csm
