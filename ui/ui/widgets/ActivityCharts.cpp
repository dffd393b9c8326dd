#include "ui/widgets/ActivityCharts.h"

#include "ui/models/RunStatusLook.h"
#include "ui/PaletteTone.h"
#include "ui/widgets/ChartLegend.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QEvent>
#include <QGraphicsLayout>
#include <QLineSeries>
#include <QLocale>
#include <QStackedBarSeries>
#include <QTimer>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

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

// In the palette's colours: Qt Charts' own themes are white or near black whatever the desktop.
QChart* newChart(const QString& title, const QPalette& palette)
{
    auto* chart = new QChart;
    chart->setTheme(PaletteTone::isDark(palette) ? QChart::ChartThemeDark
                                                 : QChart::ChartThemeLight);
    chart->setBackgroundBrush(palette.color(QPalette::Base));
    chart->setTitleBrush(palette.color(QPalette::Text));
    chart->legend()->setLabelColor(palette.color(QPalette::Text));
    chart->setTitle(title);
    chart->setAnimationOptions(QChart::NoAnimation);
    // Above the plot, so that the three plots share their right edge as they share the time.
    chart->legend()->setAlignment(Qt::AlignTop);
    chart->setMargins(QMargins(4, 4, 4, 4));
    return chart;
}

QChartView* newView(QWidget* parent)
{
    auto* view = new QChartView(newChart(QString(), parent->palette()), parent);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(150);
    return view;
}

// Shows `chart` in `view`. The view does not delete the chart it showed before: this does, with
// its series and sets (a page that reloads every few seconds would otherwise grow).
void replaceChart(QChartView* view, QChart* chart)
{
    QChart* previous = view->chart();
    view->setChart(chart);
    delete previous;
}

// The smallest of 1, 2, 5, 10, 20, 50... that cuts `maximum` in at most `steps` steps.
double niceStep(double maximum, int steps)
{
    double step = 1;
    for (int i = 0; step * steps < maximum; ++i)
        step *= i % 3 == 1 ? 2.5 : 2; // 1, 2, 5, 10, 20, 50...
    return step;
}

// A y axis from 0 in round steps, at most five: 0, 5, 10, 15 rather than 0, 2.8, 5.6.
QValueAxis* roundAxis(double maximum, const QString& labelFormat)
{
    const double step = niceStep(std::max(maximum, 1.0), 5);
    const int steps = std::max(1, int(std::ceil(std::max(maximum, 1.0) / step)));
    auto* axis = new QValueAxis;
    axis->setRange(0, step * steps);
    axis->setTickCount(steps + 1);
    axis->setLabelFormat(labelFormat);
    return axis;
}

} // namespace

ActivityCharts::ActivityCharts(QWidget* parent)
    : QWidget(parent)
    , m_clientsLegend(new ChartLegend(this))
    , m_callsView(newView(this))
    , m_outcomesView(newView(this))
    , m_durationsView(newView(this))
{
    // One above the other, each the page's width: a label for every one of 30 bars fits.
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_clientsLegend);
    layout->addWidget(m_callsView, 1);
    layout->addWidget(m_outcomesView, 1);
    layout->addWidget(m_durationsView, 1);
    m_callsView->setObjectName(QStringLiteral("callsChart"));
    m_clientsLegend->setObjectName(QStringLiteral("clientsLegend"));
    m_outcomesView->setObjectName(QStringLiteral("outcomesChart"));
    m_durationsView->setObjectName(QStringLiteral("durationsChart"));
}

QString ActivityCharts::bucketLabel(const ActivityQuery& query, int bucket)
{
    // Short enough for a label per bar at 1280 pixels, the bottom charts' half width included:
    // "14:05" for 12 intervals, "14" for 24 hours, "Fri 4" for a week, "4" for a month.
    const QDateTime start = query.bucketStart(bucket).toLocalTime();
    const QLocale locale;
    if (query.bucketMs < 3'600'000)
        return locale.toString(start.time(), QStringLiteral("HH:mm"));
    if (query.bucketMs < 86'400'000)
        return locale.toString(start.time(), QStringLiteral("HH"));
    if (query.bucketCount() <= 7)
        return locale.toString(start.date(), QStringLiteral("ddd d"));
    return locale.toString(start.date(), QStringLiteral("d"));
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
    m_report = report;
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
        QChart* chart = newChart(title, palette());
        auto* series = new QStackedBarSeries;
        series->append(sets);
        chart->addSeries(series);
        QAbstractAxis* x = xAxis();
        QAbstractAxis* y = roundAxis(busiest, QStringLiteral("%d"));
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
    replaceChart(m_callsView, stackedChart(tr("Calls by client"), m_clientSets));
    // Every client, however many: the chart's own legend would cut them to one line.
    m_callsView->chart()->legend()->hide();
    QList<ChartLegend::Entry> clients;
    for (QBarSet* set : std::as_const(m_clientSets))
        clients.append({set->label(), set->color()});
    m_clientsLegend->showEntries(clients);
    for (const auto& status : report.statuses) {
        const RunStatus exact = status.status;
        QBarSet* set = barSet(RunStatusLook::label(exact), status.calls,
                              [exact](RunsSelection& selection) { selection.status = exact; });
        set->setColor(statusColor(exact));
        set->setBorderColor(statusColor(exact));
        m_statusSets << set;
    }
    replaceChart(m_outcomesView, stackedChart(tr("Outcomes"), m_statusSets));

    qint64 slowest = 0;
    for (const QList<qint64>* values : {&report.p50Ms, &report.p95Ms}) {
        for (qint64 ms : *values)
            slowest = std::max(slowest, ms);
    }
    // Seconds once a run takes seconds: "30", not "30284".
    const bool inSeconds = slowest >= 2000;
    const double unit = inSeconds ? 1000.0 : 1.0;
    QChart* durations = newChart(inSeconds ? tr("Duration (s)") : tr("Duration (ms)"), palette());
    const auto line = [&](const QString& name, const QList<qint64>& values) {
        auto* series = new QLineSeries;
        series->setName(name);
        series->setPointsVisible(true);
        for (int bucket = 0; bucket < values.size(); ++bucket) {
            // An interval where nothing ended has no duration: no point, not a zero.
            if (values.at(bucket) >= 0)
                series->append(bucket, double(values.at(bucket)) / unit);
        }
        durations->addSeries(series);
        return series;
    };
    QLineSeries* median = line(tr("median"), report.p50Ms);
    QLineSeries* p95 = line(tr("95th percentile"), report.p95Ms);
    QValueAxis* durationAxis = roundAxis(double(slowest) / unit, QStringLiteral("%g"));
    // A category axis with lines too: interval i's point sits on its label.
    QBarCategoryAxis* intervals = xAxis();
    durations->addAxis(intervals, Qt::AlignBottom);
    durations->addAxis(durationAxis, Qt::AlignLeft);
    for (QLineSeries* series : {median, p95}) {
        series->attachAxis(intervals);
        series->attachAxis(durationAxis);
    }
    replaceChart(m_durationsView, durations);
    // Once laid out, the plots start where the widest axis labels end.
    QTimer::singleShot(0, this, &ActivityCharts::alignPlots);
}

void ActivityCharts::alignPlots()
{
    // Each chart's y labels are as wide as its numbers ("5" or "120"): without this, interval i
    // sits at another x in each chart.
    const QList<QChartView*> views{m_callsView, m_outcomesView, m_durationsView};
    for (QChartView* view : views)
        view->chart()->setMargins(QMargins(4, 4, 4, 4));
    qreal left = 0;
    for (QChartView* view : views) {
        view->chart()->layout()->activate();
        left = std::max(left, view->chart()->plotArea().left());
    }
    for (QChartView* view : views) {
        QMargins margins = view->chart()->margins();
        margins.setLeft(margins.left() + int(std::lround(left - view->chart()->plotArea().left())));
        view->chart()->setMargins(margins);
    }
}

void ActivityCharts::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange && m_report)
        showReport(*m_report);
}

} // namespace csm
