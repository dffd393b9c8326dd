#include "history/HistoryOptions.h"

#include "core/SettingsFile.h"
#include "history/HistoryLocation.h"

#include <QCommandLineParser>

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
    , m_maxMb(QStringLiteral("history-max-mb"),
              QStringLiteral("Keep the history within N MiB, deleting the oldest runs beyond it, "
                             "after each run and every 10 minutes (default %1; 0: no limit).")
                  .arg(RetentionPolicy{}.maxTotalBytes / RetentionPolicy::kMiB),
              QStringLiteral("N"))
    , m_filesMaxMb(QStringLiteral("history-files-max-mb"),
                   QStringLiteral("Keep the files of runs (inputs and outputs, beside the history) "
                                  "within N MiB, deleting the oldest runs' files beyond it "
                                  "(default %1; 0: no limit).")
                       .arg(RetentionPolicy{}.maxFilesBytes / RetentionPolicy::kMiB),
                   QStringLiteral("N"))
{}

std::optional<QString> HistoryOptions::applyLimit(const QString& key, const QString& text,
                                                  RetentionPolicy& policy) const
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < 0)
        return QStringLiteral("must be a whole number, 0 or more (0: no limit)");
    if (key == m_maxRuns.names().constFirst()) {
        policy.maxRuns = value;
    } else if (key == m_maxDays.names().constFirst()) {
        policy.maxAgeDays = value;
    } else if (key == m_filesMaxMb.names().constFirst()) {
        policy.maxFilesBytes = value * RetentionPolicy::kMiB;
    } else {
        policy.maxTotalBytes = value * RetentionPolicy::kMiB;
    }
    return std::nullopt;
}

Expected<RetentionPolicy> HistoryOptions::retention(const QCommandLineParser& parser,
                                                    const SettingsFile* stored,
                                                    QList<StoredProblem>* problems) const
{
    RetentionPolicy policy;
    for (const QCommandLineOption& option : retentionOptions()) {
        const QString key = option.names().constFirst();
        if (parser.isSet(option)) {
            if (const auto problem = applyLimit(key, parser.value(option), policy))
                return Unexpected(
                    QStringLiteral("--%1 \"%2\": %3").arg(key, parser.value(option), *problem));
        } else if (stored && stored->contains(key)) {
            // The file is not this command line's fault: its bad values are skipped.
            if (const auto problem = applyLimit(key, stored->value(key), policy);
                problem && problems)
                problems->append({key, stored->value(key), *problem});
        }
    }
    return policy;
}

} // namespace csm
