#include "ui/widgets/RunsFilterNote.h"

#include "history/HistoryStore.h"
#include "ui/Plural.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>

namespace csm {

namespace {
// Running runs looked at for one a filter hides: more at once are rare, and one is enough.
constexpr int kRunningRunsLooked = 20;
} // namespace

RunsFilterNote::RunsFilterNote(HistoryStore& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_count(new QLabel(this))
    , m_hiddenLive(new QLabel(this))
    , m_reset(new QPushButton(tr("Reset filters"), this))
{
    m_count->setTextFormat(Qt::PlainText);
    m_hiddenLive->setTextFormat(Qt::PlainText);
    m_reset->setFlat(true);
    m_reset->setCursor(Qt::PointingHandCursor);
    m_reset->setToolTip(tr("Show every run again (Escape in the filter does it too)"));
    connect(m_reset, &QPushButton::clicked, this, &RunsFilterNote::resetRequested);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_count);
    layout->addWidget(m_reset);
    layout->addWidget(m_hiddenLive, 1);
    m_count->setObjectName(QStringLiteral("filterCount"));
    m_hiddenLive->setObjectName(QStringLiteral("hiddenLiveRun"));
    m_reset->setObjectName(QStringLiteral("resetFilters"));
    hide();
}

bool RunsFilterNote::narrows(const HistoryQuery& filter)
{
    return !filter.statuses.isEmpty() || !filter.language.isEmpty() ||
           !filter.clientName.isEmpty() || filter.exactClientName || !filter.text.isEmpty() ||
           filter.startedFrom.isValid() || filter.startedBefore.isValid() ||
           !filter.sessionKey.isEmpty();
}

void RunsFilterNote::update(const HistoryQuery& filter, int shown, bool complete)
{
    if (!narrows(filter)) {
        hide();
        return;
    }
    const QLocale locale;
    const qint64 total = m_store.queries().count(HistoryQuery{}).valueOr(-1);
    // Counting a text filter apart would read every run's output; the list knows it once read.
    qint64 matching = shown;
    bool exact = complete;
    if (filter.text.isEmpty() || complete) {
        matching = complete ? shown : m_store.queries().count(filter).valueOr(shown);
        exact = true;
    }
    const QString count =
        exact ? locale.toString(matching) : tr("%1 or more").arg(locale.toString(matching));
    m_count->setText(
        total >= 0 ? tr("%1 of %2 %3")
                         .arg(count, locale.toString(total), total == 1 ? tr("run") : tr("runs"))
                   : tr("%1 shown").arg(count));

    // A run still going that the filter leaves out: say so, and by which filter.
    HistoryQuery running;
    running.statuses = {RunStatus::Running};
    running.limit = kRunningRunsLooked;
    running.includeContent = false;
    int hidden = 0;
    QString hidingFilter;
    for (const RunRecord& run : m_store.queries().list(running).valueOr({})) {
        const QString by = filterHiding(filter, run);
        if (by.isEmpty())
            continue;
        ++hidden;
        if (hidingFilter.isEmpty())
            hidingFilter = by;
    }
    m_hiddenLive->setVisible(hidden > 0);
    if (hidden > 0) {
        m_hiddenLive->setText(
            tr("%1 hidden by the %2 filter")
                .arg(Plural::of(hidden, "running call", "running calls"), hidingFilter));
    }
    show();
}

QString RunsFilterNote::filterHiding(const HistoryQuery& filter, const RunRecord& run) const
{
    if (!filter.statuses.isEmpty() && !filter.statuses.contains(run.status))
        return tr("status");
    if (!filter.language.isEmpty() && filter.language != run.language)
        return tr("language");
    if ((filter.exactClientName && *filter.exactClientName != run.clientName) ||
        (!filter.clientName.isEmpty() &&
         !run.clientName.contains(filter.clientName, Qt::CaseInsensitive)))
        return tr("client");
    if ((filter.startedFrom.isValid() && run.startedAt < filter.startedFrom) ||
        (filter.startedBefore.isValid() && run.startedAt >= filter.startedBefore))
        return tr("time");
    if (!filter.sessionKey.isEmpty() && filter.sessionKey != run.sessionKey)
        return tr("session");
    if (!filter.text.isEmpty()) {
        // Its code and output so far, searched by the store as the filter searches.
        HistoryQuery byText;
        byText.ids = {run.id};
        byText.text = filter.text;
        if (m_store.queries().count(byText).valueOr(1) == 0)
            return tr("text");
    }
    return {};
}

} // namespace csm
