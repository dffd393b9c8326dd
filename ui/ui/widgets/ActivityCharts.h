#pragma once

#include "history/ActivityReport.h"
#include "ui/models/RunsSelection.h"

#include <QWidget>

#include <optional>

class QBarSet;
class QChart;
class QChartView;

namespace csm {

class ChartLegend;

// The three charts of the Activity page, drawn from one ActivityReport with Qt Charts: calls per
// interval stacked by client (every client in a legend above it, ChartLegend), the same stacked by
// outcome, and the median and 95th percentile duration per interval. A bar set's hover says what it
// counts; a click asks for its runs.
class ActivityCharts final : public QWidget
{
    Q_OBJECT

public:
    explicit ActivityCharts(QWidget* parent = nullptr);

    void showReport(const ActivityReport& report);

    // For tests: the bar sets of the calls chart (one per client) and the outcome chart (one per
    // status), in the report's order.
    QList<QBarSet*> clientSets() const { return m_clientSets; }
    QList<QBarSet*> statusSets() const { return m_statusSets; }
    QChartView* callsView() const { return m_callsView; }
    ChartLegend* clientsLegend() const { return m_clientsLegend; }
    QChartView* outcomesView() const { return m_outcomesView; }
    QChartView* durationsView() const { return m_durationsView; }

protected:
    // A palette changed (dark mode): the charts are drawn again in its colours.
    void changeEvent(QEvent* event) override;

Q_SIGNALS:
    void runsRequested(const csm::RunsSelection& selection);

private:
    // "14:05", "14:00" or "Dec 4": what the interval `bucket` is called on the x axis.
    static QString bucketLabel(const ActivityQuery& query, int bucket);
    QStringList bucketLabels(const ActivityQuery& query) const;
    // The interval `bucket` of the report shown, as a selection of runs.
    RunsSelection selectionOf(int bucket) const;
    // The plots' left edges in line, so that an interval is at the same x in each chart.
    void alignPlots();
    void connectBars(QBarSet* set, const std::function<void(RunsSelection&)>& narrow,
                     const QString& what);

    ChartLegend* m_clientsLegend = nullptr; // above the calls chart
    QChartView* m_callsView = nullptr;
    QChartView* m_outcomesView = nullptr;
    QChartView* m_durationsView = nullptr;
    QList<QBarSet*> m_clientSets;
    QList<QBarSet*> m_statusSets;
    ActivityQuery m_query;
    std::optional<ActivityReport> m_report;
};

} // namespace csm
