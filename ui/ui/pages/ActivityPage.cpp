#include "ui/pages/ActivityPage.h"

#include "history/HistoryStore.h"
#include "ui/widgets/ActivityCharts.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QShowEvent>
#include <QtConcurrent/QtConcurrentRun>
#include <QVBoxLayout>

namespace csm {

namespace {

constexpr qint64 kMinuteMs = 60'000;
constexpr qint64 kHourMs = 60 * kMinuteMs;

// Read on a worker thread, over a connection of its own (a store is bound to its thread).
Expected<ActivityReport> readActivity(const QString& path, const ActivityQuery& query)
{
    Expected<std::unique_ptr<HistoryStore>> store = HistoryStore::open(path);
    if (!store)
        return Unexpected(store.error());
    return (*store)->queries().activity(query);
}

// "1 call", "1,234 calls": English plurals, as the rest of the app (no translations yet).
QString counted(qint64 count, const QString& one, const QString& many)
{
    return count == 1 ? one : many.arg(QLocale().toString(count));
}

QString durationText(qint64 ms)
{
    if (ms < 1000)
        return QObject::tr("%1 ms").arg(ms);
    return QObject::tr("%1 s").arg(QLocale().toString(double(ms) / 1000.0, 'f', 1));
}

} // namespace

ActivityPage::ActivityPage(HistoryStore& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_range(new QComboBox(this))
    , m_summary(new QLabel(this))
    , m_charts(new ActivityCharts(this))
{
    m_range->addItem(tr("Last hour"), int(Range::LastHour));
    m_range->addItem(tr("Last 24 hours"), int(Range::Last24Hours));
    m_range->addItem(tr("Last 7 days"), int(Range::Last7Days));
    m_range->addItem(tr("Last 30 days"), int(Range::Last30Days));
    m_range->setCurrentIndex(int(Range::Last24Hours));
    m_summary->setTextFormat(Qt::PlainText);
    auto* top = new QHBoxLayout;
    top->addWidget(m_range);
    top->addWidget(m_summary, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_charts, 1);
    connect(m_range, &QComboBox::currentIndexChanged, this, &ActivityPage::reload);
    connect(&m_loading, &QFutureWatcher<Expected<ActivityReport>>::finished, this,
            &ActivityPage::onLoaded);
    connect(m_charts, &ActivityCharts::runsRequested, this, &ActivityPage::runsRequested);
    m_changeCheck.setInterval(kChangeCheckMs);
    connect(&m_changeCheck, &QTimer::timeout, this, &ActivityPage::checkForChanges);
    m_range->setObjectName(QStringLiteral("activityRange"));
    m_summary->setObjectName(QStringLiteral("activitySummary"));
    m_charts->setObjectName(QStringLiteral("activityCharts"));
}

ActivityPage::~ActivityPage()
{
    // The worker holds only its own connection and a copy of the query: waiting is enough.
    m_loading.waitForFinished();
}

ActivityQuery ActivityPage::queryFor(Range range, const QDateTime& now)
{
    ActivityQuery query;
    const auto alignedUp = [&now](qint64 step) {
        const qint64 ms = now.toMSecsSinceEpoch();
        return QDateTime::fromMSecsSinceEpoch((ms / step + 1) * step);
    };
    switch (range) {
    case Range::LastHour:
        query.bucketMs = 5 * kMinuteMs;
        query.before = alignedUp(query.bucketMs);
        query.from = query.before.addMSecs(-12 * query.bucketMs);
        break;
    case Range::Last24Hours:
        query.bucketMs = kHourMs;
        query.before = alignedUp(query.bucketMs);
        query.from = query.before.addMSecs(-24 * query.bucketMs);
        break;
    case Range::Last7Days:
    case Range::Last30Days: {
        // Local days, from midnight to midnight: a day that changes the clock (daylight saving)
        // has an hour more or less.
        const int days = range == Range::Last7Days ? 7 : 30;
        const QDate today = now.toLocalTime().date();
        query.bucketMs = 24 * kHourMs;
        for (int day = days - 1; day >= 0; --day)
            query.starts << today.addDays(-day).startOfDay();
        query.from = query.starts.constFirst();
        query.before = today.addDays(1).startOfDay();
        break;
    }
    }
    return query;
}

void ActivityPage::setRange(Range range)
{
    m_range->setCurrentIndex(m_range->findData(int(range)));
}

void ActivityPage::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    m_changeCheck.start();
    checkForChanges();
}

void ActivityPage::checkForChanges()
{
    if (!isVisible()) {
        m_changeCheck.stop();
        return;
    }
    const qint64 changes = m_store.queries().lastChangeSeq().valueOr(-1);
    const qint64 deletions = m_store.queries().deletionSeq().valueOr(-1);
    // The intervals move on with the clock as well: once the report's last interval has ended,
    // it is read again even when nothing changed.
    const bool stale = m_report && QDateTime::currentDateTime() >= m_report->query.before;
    if (changes != m_seenChangeSeq || deletions != m_seenDeletionSeq || stale || !m_report) {
        m_seenChangeSeq = changes;
        m_seenDeletionSeq = deletions;
        reload();
    }
}

void ActivityPage::reload()
{
    if (m_loading.isRunning()) {
        m_reloadAgain = true;
        return;
    }
    const ActivityQuery query =
        queryFor(static_cast<Range>(m_range->currentData().toInt()), QDateTime::currentDateTime());
    if (!m_report)
        m_summary->setText(tr("Reading the history…"));
    m_loading.setFuture(
        QtConcurrent::run([path = m_store.path(), query] { return readActivity(path, query); }));
}

void ActivityPage::onLoaded()
{
    Expected<ActivityReport> report = m_loading.result();
    if (m_reloadAgain) {
        // What changed meanwhile (another range, new runs): read again, show this one till then.
        m_reloadAgain = false;
        reload();
        if (!report)
            return;
    }
    if (!report) {
        m_summary->setText(tr("The history cannot be read: %1").arg(report.error()));
        return;
    }
    m_report = *std::move(report);
    m_charts->showReport(*m_report);
    showSummary();
}

void ActivityPage::showSummary()
{
    const ActivityReport& report = *m_report;
    if (report.totalCalls == 0) {
        m_summary->setText(tr("No calls in this period."));
        return;
    }
    int ok = 0;
    for (const auto& status : report.statuses) {
        if (status.status == RunStatus::Ok)
            ok = status.total;
    }
    qint64 slowest = -1;
    for (qint64 ms : report.maxMs)
        slowest = std::max(slowest, ms);
    QStringList parts{
        counted(report.totalCalls, tr("1 call"), tr("%1 calls")),
        tr("%1% ok").arg(QLocale().toString(100.0 * ok / report.totalCalls, 'f', 0)),
        counted(report.clients.size(), tr("1 client"), tr("%1 clients")),
    };
    if (slowest >= 0)
        parts << tr("slowest %1").arg(durationText(slowest));
    m_summary->setText(parts.join(QStringLiteral(" · ")));
}

} // namespace csm
