#include "ui/widgets/ActivityCharts.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QGridLayout>
#include <QLineSeries>
#include <QLocale>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>

namespace csm {

namespace {

// The outcome colours people expect: green ok, red error, amber timeout...
QColor statusColor(RunStatus status)
{
    switch (status) {
    case RunStatus::Ok:
        return QColor(0x2e, 0x9d, 0x4f);
    case RunStatus::Error:
        return QColor(0xd6, 0x3b, 0x3b);
    case RunStatus::Timeout:
        return QColor(0xe8, 0x9b, 0x1c);
    case RunStatus::Oom:
        return QColor(0x8e, 0x44, 0xad);
    case RunStatus::Cancelled:
        return QColor(0x8a, 0x8a, 0x8a);
    case RunStatus::EngineError:
        return QColor(0x6d, 0x4c, 0x41);
    case RunStatus::Interrupted:
        return QColor(0xb0, 0xb0, 0xb0);
    case RunStatus::Running:
        return QColor(0x3a, 0x7b, 0xd5);
    }
    return Qt::gray;
}

QChart* newChart(const QString& title)
{
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->setMargins(QMargins(4, 4, 4, 4));
    return chart;
}

QChartView* newView(QWidget* parent)
{
    auto* view = new QChartView(newChart(QString()), parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(180);
    return view;
}

// A y axis from 0 that counts whole things: no "2.5 calls".
QValueAxis* countAxis(int maximum)
{
    auto* axis = new QValueAxis;
    axis->setRange(0, std::max(maximum, 1));
    axis->setLabelFormat(QStringLiteral("%d"));
    axis->setTickCount(std::min(std::max(maximum, 1), 5) + 1);
    return axis;
}

} // namespace

ActivityCharts::ActivityCharts(QWidget* parent)
    : QWidget(parent)
    , m_callsView(newView(this))
    , m_outcomesView(newView(this))
    , m_durationsView(newView(this))
{
    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_callsView, 0, 0, 1, 2);
    layout->addWidget(m_outcomesView, 1, 0);
    layout->addWidget(m_durationsView, 1, 1);
    layout->setRowStretch(0, 1);
    layout->setRowStretch(1, 1);
    m_callsView->setObjectName(QStringLiteral("callsChart"));
    m_outcomesView->setObjectName(QStringLiteral("outcomesChart"));
    m_durationsView->setObjectName(QStringLiteral("durationsChart"));
}

QString ActivityCharts::bucketLabel(const ActivityQuery& query, int bucket)
{
    const QDateTime start = query.bucketStart(bucket).toLocalTime();
    if (query.bucketMs >= 86'400'000)
        return QLocale().toString(start.date(), QStringLiteral("MMM d"));
    return QLocale().toString(start.time(), QStringLiteral("HH:mm"));
}

QStringList ActivityCharts::bucketLabels(const ActivityQuery& query) const
{
    QStringList labels;
    for (int bucket = 0; bucket < query.bucketCount(); ++bucket)
        labels << bucketLabel(query, bucket);
    return labels;
}

RunsSelection ActivityCharts::selectionOf(int bucket) const
{
    RunsSelection selection;
    selection.from = m_query.bucketStart(bucket);
    selection.before = std::min(m_query.bucketStart(bucket + 1), m_query.before);
    return selection;
}

void ActivityCharts::connectBars(QBarSet* set, const std::function<void(RunsSelection&)>& narrow,
                                 const QString& what)
{
    connect(set, &QBarSet::clicked, this, [this, narrow](int bucket) {
        RunsSelection selection = selectionOf(bucket);
        narrow(selection);
        Q_EMIT runsRequested(selection);
    });
    connect(set, &QBarSet::hovered, this, [this, set, what](bool entered, int bucket) {
        if (!entered) {
            QToolTip::hideText();
            return;
        }
        const int calls = int(set->at(bucket));
        const QString count = calls == 1 ? tr("1 call") : tr("%1 calls").arg(calls);
        QToolTip::showText(
            QCursor::pos(),
            tr("%1 · %2: %3\nClick to see them").arg(what, bucketLabel(m_query, bucket), count));
    });
}

void ActivityCharts::showReport(const ActivityReport& report)
{
    m_query = report.query;
    m_clientSets.clear();
    m_statusSets.clear();
    const QStringList labels = bucketLabels(report.query);
    QList<int> totals(labels.size(), 0);
    for (const auto& client : report.clients) {
        for (int bucket = 0; bucket < client.calls.size(); ++bucket)
            totals[bucket] += client.calls.at(bucket);
    }
    const int busiest = totals.isEmpty() ? 0 : *std::max_element(totals.begin(), totals.end());
    const auto xAxis = [&labels] {
        auto* axis = new QBarCategoryAxis;
        axis->append(labels);
        // Many intervals: slanted labels, so that they do not run into each other.
        if (labels.size() > 12)
            axis->setLabelsAngle(-45);
        return axis;
    };

    // A bar set per client (per status), stacked per interval; a click narrows to its runs.
    const auto barSet = [this](const QString& name, const QList<int>& calls,
                               const std::function<void(RunsSelection&)>& narrow) {
        auto* set = new QBarSet(name);
        for (int count : calls)
            set->append(count);
        connectBars(set, narrow, name);
        return set;
    };
    const auto stackedChart = [&](const QString& title, const QList<QBarSet*>& sets) {
        QChart* chart = newChart(title);
        auto* series = new QStackedBarSeries;
        series->append(sets);
        chart->addSeries(series);
        QAbstractAxis* x = xAxis();
        QAbstractAxis* y = countAxis(busiest);
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        series->attachAxis(x);
        series->attachAxis(y);
        return chart;
    };
    for (const auto& client : report.clients) {
        const QString exact = client.client;
        m_clientSets << barSet(exact.isEmpty() ? tr("(no name)") : exact, client.calls,
                               [exact](RunsSelection& selection) { selection.client = exact; });
    }
    // The view deletes the chart it showed before.
    m_callsView->setChart(stackedChart(tr("Calls by client"), m_clientSets));
    for (const auto& status : report.statuses) {
        const RunStatus exact = status.status;
        QBarSet* set = barSet(RunStatusTraits::toString(exact), status.calls,
                              [exact](RunsSelection& selection) { selection.status = exact; });
        set->setColor(statusColor(exact));
        set->setBorderColor(statusColor(exact));
        m_statusSets << set;
    }
    m_outcomesView->setChart(stackedChart(tr("Outcomes"), m_statusSets));

    QChart* durations = newChart(tr("Duration (ms)"));
    qint64 slowest = 0;
    const auto line = [&](const QString& name, const QList<qint64>& values) {
        auto* series = new QLineSeries;
        series->setName(name);
        series->setPointsVisible(true);
        for (int bucket = 0; bucket < values.size(); ++bucket) {
            // An interval where nothing ended has no duration: no point, not a zero.
            if (values.at(bucket) >= 0) {
                series->append(bucket, double(values.at(bucket)));
                slowest = std::max(slowest, values.at(bucket));
            }
        }
        durations->addSeries(series);
        return series;
    };
    QLineSeries* median = line(tr("median"), report.p50Ms);
    QLineSeries* p95 = line(tr("95th percentile"), report.p95Ms);
    auto* durationAxis = new QValueAxis;
    durationAxis->setRange(0, double(std::max<qint64>(slowest, 1)) * 1.1);
    durationAxis->setLabelFormat(QStringLiteral("%.0f"));
    // A category axis with lines too: interval i's point sits on its label.
    QBarCategoryAxis* intervals = xAxis();
    durations->addAxis(intervals, Qt::AlignBottom);
    durations->addAxis(durationAxis, Qt::AlignLeft);
    for (QLineSeries* series : {median, p95}) {
        series->attachAxis(intervals);
        series->attachAxis(durationAxis);
    }
    m_durationsView->setChart(durations);
}

} // namespace csm
