#include "ui/DesktopNotifier.h"

#include "approval/ApprovalRequest.h"
#include "history/HistoryStore.h"
#include "runtime/Language.h"
#include "ui/Plural.h"
#include "ui/widgets/TrayIcon.h"

namespace csm {

namespace {

constexpr int kChangesPerRead = 500;
// m_told only has to cover runs that may still change: it is emptied when it grows past this.
constexpr qsizetype kMaxTold = 10'000;

QString clientOf(const QString& name)
{
    return name.isEmpty() ? DesktopNotifier::tr("A client") : name;
}

QString languageOf(const QString& language)
{
    const std::optional<Language> parsed = LanguageTraits::parse(language);
    return parsed ? LanguageTraits::displayName(*parsed) : language;
}

} // namespace

DesktopNotifier::DesktopNotifier(TrayIcon& tray, HistoryStore* history, QObject* parent)
    : QObject(parent)
    , m_tray(tray)
    , m_history(history)
{
    m_failureCheck.setInterval(kFailureCheckMs);
    connect(&m_failureCheck, &QTimer::timeout, this, &DesktopNotifier::checkFailures);
}

void DesktopNotifier::setNotifyFailures(bool on)
{
    if (!m_history || on == m_failureCheck.isActive())
        return;
    if (!on) {
        m_failureCheck.stop();
        return;
    }
    // Failures from before are history, not news.
    m_changeSeq = std::max<qint64>(0, m_history->queries().lastChangeSeq().valueOr(0));
    m_failureCheck.start();
}

void DesktopNotifier::approvalRequested(const ApprovalRequest& request)
{
    if (!m_approvals)
        return;
    m_tray.notify(tr("A call waits for your approval"),
                  tr("%1 asks to run %2 in Code Sandbox. Approve or deny it in the app's window.")
                      .arg(clientOf(request.clientName), request.tool));
}

void DesktopNotifier::checkFailures()
{
    QList<RunRecord> failed;
    for (;;) {
        const QList<RunRecord> page =
            m_history->queries().changedSince(m_changeSeq, kChangesPerRead, 0).valueOr({});
        for (const RunRecord& run : page) {
            m_changeSeq = std::max(m_changeSeq, run.changeSeq);
            if ((run.status == RunStatus::Error || run.status == RunStatus::Oom) &&
                !m_told.contains(run.id))
                failed << run;
        }
        if (page.size() < kChangesPerRead)
            break;
    }
    if (m_told.size() > kMaxTold)
        m_told.clear();
    for (const RunRecord& run : std::as_const(failed))
        m_told.insert(run.id);
    if (failed.size() > kMaxFailureMessages) {
        m_tray.notify(tr("%1 failed").arg(Plural::of(failed.size(), "call", "calls")),
                      tr("See the Runs page for what they printed."));
        return;
    }
    for (const RunRecord& run : std::as_const(failed))
        notifyFailure(run);
}

void DesktopNotifier::notifyFailure(const RunRecord& run)
{
    const QString who = clientOf(run.clientName);
    const QString language = languageOf(run.language);
    if (run.status == RunStatus::Oom) {
        m_tray.notify(tr("A call ran out of memory"),
                      tr("%1's %2 run #%3 was killed: it used all the memory a sandbox may "
                         "have (Settings, Sandbox limits).")
                          .arg(who, language)
                          .arg(run.id));
        return;
    }
    m_tray.notify(tr("A call failed"),
                  run.exitCode ? tr("%1's %2 run #%3 ended with exit code %4.")
                                     .arg(who, language)
                                     .arg(run.id)
                                     .arg(*run.exitCode)
                               : tr("%1's %2 run #%3 failed.").arg(who, language).arg(run.id));
}

} // namespace csm
