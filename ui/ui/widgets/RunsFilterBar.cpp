#include "ui/widgets/RunsFilterBar.h"

#include "history/HistoryStore.h"
#include "history/RunRecord.h"
#include "runtime/Language.h"
#include "ui/models/RunStatusLook.h"
#include "ui/Plural.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QLocale>
#include <QScopeGuard>
#include <QShortcut>
#include <QSignalBlocker>

#include <algorithm>

namespace csm {

namespace {

constexpr RunStatus kStatuses[] = {
    RunStatus::Running,   RunStatus::Ok,  RunStatus::Error,       RunStatus::Timeout,
    RunStatus::Cancelled, RunStatus::Oom, RunStatus::EngineError, RunStatus::Interrupted,
};
constexpr Language kLanguages[] = {Language::Python, Language::JavaScript};

QDateTime startOf(RunsFilterBar::TimeRange range)
{
    const QDateTime now = QDateTime::currentDateTime();
    switch (range) {
    case RunsFilterBar::TimeRange::Any:
        return {};
    case RunsFilterBar::TimeRange::LastHour:
        return now.addSecs(-3600);
    case RunsFilterBar::TimeRange::Today:
        return now.date().startOfDay();
    case RunsFilterBar::TimeRange::Last7Days:
        return now.addDays(-7);
    case RunsFilterBar::TimeRange::Last30Days:
        return now.addDays(-30);
    case RunsFilterBar::TimeRange::Custom:
        return {};
    }
    return {};
}

} // namespace

RunsFilterBar::RunsFilterBar(HistoryStore& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_text(new QLineEdit(this))
    , m_status(new QComboBox(this))
    , m_language(new QComboBox(this))
    , m_client(new QComboBox(this))
    , m_time(new QComboBox(this))
    , m_session(new QComboBox(this))
{
    m_text->setPlaceholderText(tr("Filter by code or output"));
    m_text->setClearButtonEnabled(true);
    m_status->addItem(tr("Any status"));
    for (RunStatus status : kStatuses)
        m_status->addItem(RunStatusLook::label(status), int(status));
    m_language->addItem(tr("Any language"));
    for (Language language : kLanguages)
        m_language->addItem(LanguageTraits::displayName(language), LanguageTraits::id(language));
    m_client->addItem(tr("Any client"));
    m_time->addItem(tr("Any time"), int(TimeRange::Any));
    m_time->addItem(tr("Last hour"), int(TimeRange::LastHour));
    m_time->addItem(tr("Today"), int(TimeRange::Today));
    m_time->addItem(tr("Last 7 days"), int(TimeRange::Last7Days));
    m_time->addItem(tr("Last 30 days"), int(TimeRange::Last30Days));
    m_session->addItem(tr("Any session"));
    // A long client or session name widens the list it opens, not the box: the text filter
    // keeps room to type in at 1024 pixels.
    for (QComboBox* named : {m_client, m_session}) {
        named->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        named->setMinimumContentsLength(14);
    }
    m_text->setMinimumWidth(fontMetrics().horizontalAdvance(QLatin1Char('M')) * 16);
    m_session->setToolTip(
        tr("Only the cells of one persistent session, in order (the first at the top)"));

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    for (QComboBox* combo : choices())
        layout->addWidget(combo);

    m_typingDelay.setSingleShot(true);
    connect(&m_typingDelay, &QTimer::timeout, this, &RunsFilterBar::changed);
    connect(m_text, &QLineEdit::textChanged, this, [this] { m_typingDelay.start(kTypingDelayMs); });
    for (QComboBox* combo : choices())
        connect(combo, &QComboBox::currentIndexChanged, this, &RunsFilterBar::changed);
    // Escape in the text filter clears every filter, as Reset does.
    auto* escape =
        new QShortcut(QKeySequence(Qt::Key_Escape), m_text, nullptr, nullptr, Qt::WidgetShortcut);
    connect(escape, &QShortcut::activated, this, &RunsFilterBar::reset);
    connect(&m_listsRefresh, &QTimer::timeout, this, &RunsFilterBar::refreshClients);
    connect(&m_listsRefresh, &QTimer::timeout, this, &RunsFilterBar::refreshSessions);
    m_listsRefresh.start(kListsRefreshMs);
    refreshClients();
    refreshSessions();

    // Stable names: tests find the widgets by them (findChild).
    m_text->setObjectName(QStringLiteral("textFilter"));
    m_status->setObjectName(QStringLiteral("statusFilter"));
    m_language->setObjectName(QStringLiteral("languageFilter"));
    m_client->setObjectName(QStringLiteral("clientFilter"));
    m_time->setObjectName(QStringLiteral("timeFilter"));
    m_session->setObjectName(QStringLiteral("sessionFilter"));
}

QList<QComboBox*> RunsFilterBar::choices() const
{
    return {m_status, m_language, m_client, m_time, m_session};
}

HistoryQuery RunsFilterBar::query() const
{
    HistoryQuery filter;
    filter.text = m_text->text().trimmed();
    if (m_status->currentData().isValid())
        filter.statuses = {static_cast<RunStatus>(m_status->currentData().toInt())};
    if (m_language->currentData().isValid())
        filter.language = m_language->currentData().toString();
    if (m_client->currentData().isValid())
        filter.exactClientName = m_client->currentData().toString();
    const auto range = static_cast<TimeRange>(m_time->currentData().toInt());
    filter.startedFrom = range == TimeRange::Custom ? m_customFrom : startOf(range);
    if (range == TimeRange::Custom)
        filter.startedBefore = m_customBefore;
    filter.sessionKey = chosenSession();
    return filter;
}

QString RunsFilterBar::chosenSession() const
{
    return m_session->currentData().toString();
}

void RunsFilterBar::setQuiet(bool quiet)
{
    m_text->blockSignals(quiet);
    for (QComboBox* combo : choices())
        combo->blockSignals(quiet);
}

void RunsFilterBar::reset()
{
    setQuiet(true);
    m_text->clear();
    for (QComboBox* combo : choices())
        combo->setCurrentIndex(0);
    setQuiet(false);
    m_typingDelay.stop();
    Q_EMIT changed();
}

void RunsFilterBar::focusText()
{
    m_text->setFocus(Qt::ShortcutFocusReason);
    m_text->selectAll();
}

void RunsFilterBar::refreshClients()
{
    const Expected<QStringList> read = m_store.queries().clients();
    if (!read)
        return; // logged by the store; the list stays as it was
    const QStringList& names = *read;
    if (names == m_clientNames)
        return;
    m_clientNames = names;
    // The chosen client stays chosen, even once its runs are gone (deleted or pruned).
    const QVariant chosen = m_client->currentData();
    QStringList items = names;
    if (chosen.isValid() && !items.contains(chosen.toString()))
        items.append(chosen.toString());
    const QSignalBlocker blocker(m_client);
    m_client->clear();
    m_client->addItem(tr("Any client"));
    for (const QString& name : std::as_const(items))
        m_client->addItem(name.isEmpty() ? tr("(no name)") : name, name);
    m_client->setCurrentIndex(chosen.isValid() ? std::max(0, m_client->findData(chosen)) : 0);
}

void RunsFilterBar::refreshSessions()
{
    const Expected<QList<HistoryInterpreterSession>> read = m_store.queries().sessions();
    if (!read)
        return; // logged by the store; the list stays as it was
    const QList<HistoryInterpreterSession>& sessions = *read;
    if (sessions == m_sessions)
        return;
    m_sessions = sessions;
    // The chosen session stays chosen, even once its runs are gone.
    const QVariant chosen = m_session->currentData();
    const QString chosenText = m_session->currentText();
    const QSignalBlocker blocker(m_session);
    m_session->clear();
    m_session->addItem(tr("Any session"));
    for (const HistoryInterpreterSession& session : sessions) {
        const QString when =
            QLocale().toString(session.lastStartedAt.toLocalTime(), QLocale::ShortFormat);
        m_session->addItem(
            tr("%1 (%2, %3)")
                .arg(session.name,
                     session.clientName.isEmpty() ? tr("no client name") : session.clientName,
                     when),
            session.key);
        m_session->setItemData(
            m_session->count() - 1,
            tr("%1; container %2").arg(Plural::of(session.calls, "call", "calls"), session.key),
            Qt::ToolTipRole);
    }
    if (chosen.isValid() && m_session->findData(chosen) < 0)
        m_session->addItem(chosenText, chosen);
    m_session->setCurrentIndex(chosen.isValid() ? std::max(0, m_session->findData(chosen)) : 0);
}

void RunsFilterBar::noteRuns(const QList<RunRecord>& runs)
{
    const auto knownSession = [this](const QString& key) {
        return key.isEmpty() ||
               std::any_of(m_sessions.cbegin(), m_sessions.cend(),
                           [&key](const HistoryInterpreterSession& s) { return s.key == key; });
    };
    if (!std::all_of(runs.cbegin(), runs.cend(),
                     [&](const RunRecord& run) { return knownSession(run.sessionKey); }))
        refreshSessions();
    if (!std::all_of(runs.cbegin(), runs.cend(), [this](const RunRecord& run) {
            return m_clientNames.contains(run.clientName);
        }))
        refreshClients();
}

void RunsFilterBar::showSession(const QString& key)
{
    refreshSessions();
    int index = m_session->findData(key);
    if (index < 0) {
        // No cell recorded yet (the history is written as cells start): choose it anyway.
        m_session->addItem(key, key);
        index = m_session->count() - 1;
    }
    m_session->setCurrentIndex(index); // says changed()
}

void RunsFilterBar::showSelection(const RunsSelection& selection)
{
    {
        // Every filter at once, then one changed(): each change would otherwise say its own.
        setQuiet(true);
        const auto loud = qScopeGuard([this] { setQuiet(false); });
        m_text->clear();
        m_language->setCurrentIndex(0);
        m_session->setCurrentIndex(0);
        m_status->setCurrentIndex(
            selection.status ? std::max(0, m_status->findData(int(*selection.status))) : 0);
        int clientIndex = 0;
        if (selection.client) {
            refreshClients();
            clientIndex = m_client->findData(*selection.client);
            if (clientIndex < 0) {
                m_client->addItem(selection.client->isEmpty() ? tr("(no name)") : *selection.client,
                                  *selection.client);
                clientIndex = m_client->count() - 1;
            }
        }
        m_client->setCurrentIndex(clientIndex);
        m_customFrom = selection.from;
        m_customBefore = selection.before;
        const QString label = customRangeLabel(selection);
        int custom = m_time->findData(int(TimeRange::Custom));
        if (custom < 0) {
            m_time->addItem(label, int(TimeRange::Custom));
            custom = m_time->count() - 1;
        }
        m_time->setItemText(custom, label);
        m_time->setCurrentIndex(custom);
    }
    m_typingDelay.stop();
    Q_EMIT changed();
}

QString RunsFilterBar::customRangeLabel(const RunsSelection& selection)
{
    const QLocale locale;
    const QDateTime from = selection.from.toLocalTime();
    const QDateTime before = selection.before.toLocalTime();
    if (from.date() == before.addMSecs(-1).date()) {
        return QStringLiteral("%1, %2–%3")
            .arg(locale.toString(from.date(), QStringLiteral("MMM d")),
                 locale.toString(from.time(), QStringLiteral("HH:mm")),
                 locale.toString(before.time(), QStringLiteral("HH:mm")));
    }
    return QStringLiteral("%1 – %2").arg(locale.toString(from, QStringLiteral("MMM d HH:mm")),
                                         locale.toString(before, QStringLiteral("MMM d HH:mm")));
}

} // namespace csm
