#include "history/HistoryOptions.h"

#include "history/HistoryLocation.h"

#include <QCommandLineParser>

#include <utility>

namespace csm {

HistoryOptions::HistoryOptions()
    : m_dataDir(QStringLiteral("data-dir"),
                QStringLiteral("Folder of the run history (history.sqlite), shared with other Code "
                               "Sandbox processes. Default: $CODE_SANDBOX_DATA_DIR, else %1.")
                    .arg(HistoryLocation::dataDir({}, {})),
                QStringLiteral("dir"))
    , m_maxRuns(QStringLiteral("history-max-runs"),
                QStringLiteral("Keep the newest N runs in the history, deleting older ones "
                               "(default %1; 0: no limit).")
                    .arg(RetentionPolicy{}.maxRuns),
                QStringLiteral("N"))
    , m_maxDays(QStringLiteral("history-max-days"),
                QStringLiteral("Delete runs older than N days from the history (default %1; 0: no "
                               "limit).")
                    .arg(RetentionPolicy{}.maxAgeDays),
                QStringLiteral("N"))
{}

std::variant<RetentionPolicy, QString>
HistoryOptions::retention(const QCommandLineParser& parser) const
{
    RetentionPolicy policy;
    for (const auto& [flag, target] :
         {std::pair{&m_maxRuns, &policy.maxRuns}, std::pair{&m_maxDays, &policy.maxAgeDays}}) {
        if (!parser.isSet(*flag))
            continue;
        bool ok = false;
        const int value = parser.value(*flag).toInt(&ok);
        if (!ok || value < 0) {
            return QStringLiteral("--%1 \"%2\": must be a whole number, 0 or more (0: no limit)")
                .arg(flag->names().constFirst(), parser.value(*flag));
        }
        *target = value;
    }
    return policy;
}

} // namespace csm
