#pragma once

#include "core/Expected.h"
#include "history/ActivityReport.h"
#include "ui/models/RunsSelection.h"

#include <QFutureWatcher>
#include <QTimer>
#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;

namespace csm {

class ActivityCharts;
class HistoryStore;

// The history at a glance over a chosen stretch of time: calls per interval by client, how they
// ended, and how long they took (median and 95th percentile), with totals above. The numbers
// are aggregated in SQL on a worker thread (its own connection to the history), so the page
// stays responsive over 100,000 runs; it reads them again when the history changes while it is
// shown. Clicking a bar shows its runs on the Runs page.
class ActivityPage final : public QWidget
{
    Q_OBJECT

public:
    // The ranges offered, in the order of the range menu.
    enum class Range
    {
        LastHour,    // 5-minute intervals
        Last24Hours, // hourly
        Last7Days,   // daily
        Last30Days,  // daily
    };
    // How often the history is asked whether anything changed, while the page shows.
    static constexpr int kChangeCheckMs = 2000;

    explicit ActivityPage(HistoryStore& store, QWidget* parent = nullptr);
    ~ActivityPage() override;

    void setRange(Range range);
    // The report the charts show (nullopt before the first one is read).
    const std::optional<ActivityReport>& report() const { return m_report; }
    // Whether a report is being read.
    bool isLoading() const { return m_loading.isRunning(); }
    // The stretch `range` covers now, cut into its intervals (aligned to whole intervals,
    // local days for the daily ones).
    static ActivityQuery queryFor(Range range, const QDateTime& now);

Q_SIGNALS:
    // A bar was clicked: show its runs.
    void runsRequested(const csm::RunsSelection& selection);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void reload();
    void onLoaded();
    void checkForChanges();
    void showSummary();

    HistoryStore& m_store;
    QComboBox* m_range = nullptr;
    QLabel* m_summary = nullptr;
    ActivityCharts* m_charts = nullptr;
    QFutureWatcher<Expected<ActivityReport>> m_loading;
    std::optional<ActivityReport> m_report;
    bool m_reloadAgain = false;
    qint64 m_seenChangeSeq = -1;
    qint64 m_seenDeletionSeq = -1;
    QTimer m_changeCheck;
};

} // namespace csm
