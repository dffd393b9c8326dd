#pragma once

#include "history/HistoryQuery.h"

#include <QWidget>

class QLabel;
class QPushButton;

namespace csm {

class HistoryStore;
struct RunRecord;

// Under a filter, what it leaves out: "12 of 3,480 runs", with Reset, and which filter hides a
// run still going ("1 running call hidden by the time filter"), so that a live run is never
// out of sight without a word. Hidden while no filter narrows the list.
class RunsFilterNote final : public QWidget
{
    Q_OBJECT

public:
    explicit RunsFilterNote(HistoryStore& store, QWidget* parent = nullptr);

    // `shown`: the rows the list holds; `complete`: whether they are every match (a text
    // filter's count is read from them only then: counting it apart reads every run's output).
    void update(const HistoryQuery& filter, int shown, bool complete);
    // Whether `filter` leaves out any run.
    static bool narrows(const HistoryQuery& filter);
    // The name of the first filter of `filter` that leaves `run` out, as the page labels it
    // ("status", "time"...); empty when none does.
    QString filterHiding(const HistoryQuery& filter, const RunRecord& run) const;

Q_SIGNALS:
    void resetRequested();

private:
    HistoryStore& m_store;
    QLabel* m_count = nullptr;
    QLabel* m_hiddenLive = nullptr;
    QPushButton* m_reset = nullptr;
};

} // namespace csm
