#include "cli/HistoryCommand.h"

#include "cli/Subcommands.h"
#include "cli/TextTable.h"
#include "core/SettingsFile.h"
#include "history/HistoryLocation.h"
#include "history/HistoryOptions.h"
#include "history/HistoryQuery.h"
#include "history/HistoryStore.h"
#include "history/RetentionPolicy.h"
#include "history/RunExporter.h"
#include "history/RunRecord.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QTextStream>

#include <algorithm>
#include <memory>

namespace csm {

namespace {

constexpr int kDefaultListLimit = 20;
constexpr int kExportPage = 200;
constexpr int kCodeColumnChars = 48;

const QString& historyCommandName()
{
    static const QString name = QStringLiteral("code-sandbox-mcp history");
    return name;
}

const Subcommands& historySubcommands()
{
    static const Subcommands commands(
        historyCommandName(),
        QStringLiteral(
            "The run history: every tool call of every Code Sandbox process of this user."),
        {
            {QStringLiteral("list"),
             QStringLiteral("list [--json] [--limit N]"),
             QStringLiteral("the newest runs (default 20; 0: all)"),
             {}},
            {QStringLiteral("show"),
             QStringLiteral("show ID [--json]"),
             QStringLiteral("one run, every field"),
             {}},
            {QStringLiteral("export"),
             QStringLiteral("export --format json|csv [FILE]"),
             QStringLiteral("every run, to FILE or stdout"),
             {}},
            {QStringLiteral("prune"),
             QStringLiteral("prune"),
             QStringLiteral("delete runs beyond the retention limits"),
             {}},
        },
        QStringLiteral("Each command takes --data-dir DIR (default: $CODE_SANDBOX_DATA_DIR, else "
                       "%1) and --help.\n")
            .arg(HistoryLocation::dataDir({}, {})));
    return commands;
}

QString firstLine(const QString& code, int maxChars)
{
    QString line = code.trimmed().section(u'\n', 0, 0).trimmed();
    if (code.trimmed().contains(u'\n'))
        line += QStringLiteral(" ...");
    if (line.size() > maxChars)
        line = line.left(maxChars - 3) + QStringLiteral("...");
    return line;
}

QString duration(const RunRecord& run)
{
    if (run.status == RunStatus::Running)
        return QStringLiteral("-");
    if (run.durationMs < 1000)
        return QStringLiteral("%1 ms").arg(run.durationMs);
    return QStringLiteral("%1 s").arg(static_cast<double>(run.durationMs) / 1000.0, 0, 'f', 2);
}

QString client(const RunRecord& run)
{
    if (run.clientName.isEmpty())
        return QStringLiteral("-");
    return run.clientVersion.isEmpty() ? run.clientName : run.clientName + u' ' + run.clientVersion;
}

void printTable(const QList<RunRecord>& runs, QTextStream& out)
{
    const QStringList header{QStringLiteral("ID"),       QStringLiteral("STARTED"),
                             QStringLiteral("CLIENT"),   QStringLiteral("TOOL"),
                             QStringLiteral("STATUS"),   QStringLiteral("EXIT"),
                             QStringLiteral("DURATION"), QStringLiteral("CODE")};
    QList<QStringList> rows{header};
    for (const RunRecord& run : runs) {
        rows.append({QString::number(run.id),
                     run.startedAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")),
                     client(run), run.tool, RunStatusTraits::toString(run.status),
                     run.exitCode ? QString::number(*run.exitCode) : QStringLiteral("-"),
                     duration(run), firstLine(run.code, kCodeColumnChars)});
    }
    TextTable::print(rows, out);
}

void printRun(const RunRecord& run, QTextStream& out)
{
    const auto field = [&out](const char* name, const QString& value) {
        out << QString::fromLatin1(name).leftJustified(17) << value << '\n';
    };
    field("id:", QString::number(run.id));
    field("status:", RunStatusTraits::toString(run.status));
    field("started:", run.startedAt.toLocalTime().toString(Qt::ISODateWithMs));
    field("ended:", run.endedAt.isValid() ? run.endedAt.toLocalTime().toString(Qt::ISODateWithMs)
                                          : QStringLiteral("-"));
    field("duration:", duration(run));
    field("exit code:", run.exitCode ? QString::number(*run.exitCode) : QStringLiteral("-"));
    field("client:", client(run));
    field("transport:", run.transport);
    field("session:", run.sessionId.isEmpty() ? QStringLiteral("-") : run.sessionId);
    field("tool:", run.tool);
    field("language:", run.language);
    field("image:", run.image);
    field("limits:", QString::fromUtf8(QJsonDocument(run.limits).toJson(QJsonDocument::Compact)));
    field("server:", QStringLiteral("pid %1 on %2, instance %3")
                         .arg(run.serverPid)
                         .arg(run.hostName, run.serverInstance));
    if (!run.errorMessage.isEmpty())
        field("error:", run.errorMessage);
    const auto block = [&out](const QString& title, const QString& text, bool truncated) {
        out << "\n--- " << title << (truncated ? QStringLiteral(" (truncated)") : QString())
            << " ---\n"
            << text;
        if (!text.isEmpty() && !text.endsWith(u'\n'))
            out << '\n';
    };
    block(QStringLiteral("code"), run.code, false);
    block(QStringLiteral("stdout"), run.stdoutText, run.stdoutTruncated);
    block(QStringLiteral("stderr"), run.stderrText, run.stderrTruncated);
}

std::optional<int> wholeNumber(const QString& text, int minimum)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < minimum)
        return std::nullopt;
    return value;
}

} // namespace

HistoryCommand::HistoryCommand(QStringList arguments, const QProcessEnvironment& environment,
                               QTextStream& out, QTextStream& err, QObject* parent)
    : Command(historySubcommands(), {}, std::move(arguments), environment, out, err, parent)
    , m_limit(QStringLiteral("limit"),
              QStringLiteral("Show the newest N runs (default %1; 0: all).").arg(kDefaultListLimit),
              QStringLiteral("N"))
    , m_format(QStringLiteral("format"), QStringLiteral("json or csv (with a header row)."),
               QStringLiteral("format"))
{}

HistoryCommand::~HistoryCommand() = default;

Command::Syntax HistoryCommand::syntax() const
{
    const QCommandLineOption& dataDir = m_historyOptions.dataDir();
    if (word() == QLatin1String("list")) {
        return {QStringLiteral("list [--json] [--limit N]"),
                QStringLiteral("The newest runs, newest first."),
                {dataDir, jsonOption(), m_limit},
                0};
    }
    if (word() == QLatin1String("show")) {
        return {QStringLiteral("show ID [--json]"),
                QStringLiteral("One run, with every field."),
                {dataDir, jsonOption()},
                1};
    }
    if (word() == QLatin1String("export")) {
        return {QStringLiteral("export --format json|csv [FILE]"),
                QStringLiteral("Every run, newest first, to FILE or to stdout."),
                {dataDir, m_format},
                1};
    }
    return {
        QStringLiteral("prune [--history-max-runs N] [--history-max-days N] [--history-max-mb N] "
                       "[--history-files-max-mb N]"),
        QStringLiteral(
            "Deletes ended runs beyond the retention limits: those of the flags, else those of "
            "settings.ini in the data folder (as the servers use them), else the defaults."),
        QList<QCommandLineOption>{dataDir} + m_historyOptions.retentionOptions(), 0};
}

void HistoryCommand::run()
{
    m_dataDir = HistoryLocation::dataDir(parser().value(m_historyOptions.dataDir()), environment());
    m_historyPath = HistoryLocation::historyPath(m_dataDir);
    if (word() == QLatin1String("list"))
        list();
    else if (word() == QLatin1String("show"))
        show();
    else if (word() == QLatin1String("export"))
        exportRuns();
    else
        prune();
}

// A missing file is an empty history, not created by reading it.
bool HistoryCommand::historyExists() const
{
    return QFileInfo::exists(m_historyPath);
}

HistoryStore* HistoryCommand::openHistory()
{
    Expected<std::unique_ptr<HistoryStore>> opened = HistoryStore::open(m_historyPath);
    if (!opened) {
        err() << historyCommandName() << ": " << opened.error() << '\n';
        finish(Failed);
        return nullptr;
    }
    m_history = *std::move(opened);
    return m_history.get();
}

void HistoryCommand::historyFailed(const char* what, const QString& reason)
{
    err() << historyCommandName() << ": cannot " << what << " the run history "
          << QDir::toNativeSeparators(m_historyPath) << ": " << reason << '\n';
    finish(Failed);
}

void HistoryCommand::list()
{
    int count = kDefaultListLimit;
    if (parser().isSet(m_limit)) {
        const auto value = wholeNumber(parser().value(m_limit), 0);
        if (!value) {
            usageError(QStringLiteral("--limit must be a whole number, 0 or more"));
            return;
        }
        count = *value;
    }
    const bool json = parser().isSet(jsonOption());
    QList<RunRecord> runs;
    if (historyExists()) {
        HistoryStore* history = openHistory();
        if (!history)
            return;
        HistoryQuery query;
        query.limit = count;
        query.includeContent = json;
        query.previewChars = 400;
        Expected<QList<RunRecord>> listed = history->queries().list(query);
        if (!listed) {
            historyFailed("read", listed.error());
            return;
        }
        runs = *std::move(listed);
    }
    if (json) {
        QJsonArray array;
        for (const RunRecord& run : std::as_const(runs))
            array.append(RunExporter::toJson(run));
        out() << QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Indented));
    } else if (runs.isEmpty()) {
        out() << "No runs recorded.\n";
    } else {
        printTable(runs, out());
    }
    finish(Ok);
}

void HistoryCommand::show()
{
    if (positional().isEmpty()) {
        usageError(QStringLiteral("which run? Give its ID"));
        return;
    }
    bool ok = false;
    const qint64 id = positional().constFirst().toLongLong(&ok);
    if (!ok || id <= 0) {
        usageError(
            QStringLiteral("\"%1\" is not a run ID (a number)").arg(positional().constFirst()));
        return;
    }
    if (!historyExists()) {
        fail(QStringLiteral("no run %1").arg(id));
        return;
    }
    HistoryStore* history = openHistory();
    if (!history)
        return;
    const Expected<RunRecord> run = history->queries().get(id);
    if (!run) {
        if (run.error() == QStringLiteral("no run %1").arg(id))
            fail(run.error());
        else
            historyFailed("read", run.error());
        return;
    }
    if (parser().isSet(jsonOption()))
        out() << QString::fromUtf8(
            QJsonDocument(RunExporter::toJson(*run)).toJson(QJsonDocument::Indented));
    else
        printRun(*run, out());
    finish(Ok);
}

void HistoryCommand::exportRuns()
{
    const auto exportFormat = RunExporter::parseFormat(parser().value(m_format));
    if (!exportFormat) {
        usageError(QStringLiteral("--format must be json or csv"));
        return;
    }
    HistoryStore* history = nullptr;
    if (historyExists()) {
        history = openHistory();
        if (!history)
            return;
    }
    // A page at a time, so that a large history is never all in memory.
    // A failed read of the history is told apart from a file that cannot be written.
    QString readFailure;
    const auto fill = [history, &readFailure](RunExporter& exporter) -> Expected<void> {
        std::optional<qint64> before;
        while (history) {
            HistoryQuery query;
            query.limit = kExportPage;
            query.beforeId = before;
            const Expected<QList<RunRecord>> page = history->queries().list(query);
            if (!page) {
                readFailure = page.error();
                return Unexpected(page.error());
            }
            for (const RunRecord& run : *page)
                exporter.add(run);
            if (page->size() < kExportPage)
                break;
            before = page->constLast().id;
        }
        return {};
    };
    if (positional().isEmpty()) {
        RunExporter exporter(out(), *exportFormat);
        if (const Expected<void> filled = fill(exporter); !filled) {
            historyFailed("read", filled.error());
            return;
        }
        exporter.finish();
        finish(Ok);
        return;
    }
    if (const Expected<void> written =
            RunExporter::writeFile(positional().constFirst(), *exportFormat, fill);
        !written) {
        if (!readFailure.isEmpty())
            historyFailed("read", readFailure);
        else
            fail(written.error());
        return;
    }
    finish(Ok);
}

void HistoryCommand::prune()
{
    const SettingsFile stored(m_dataDir);
    QList<HistoryOptions::StoredProblem> storedProblems;
    const auto retention = m_historyOptions.retention(parser(), &stored, &storedProblems);
    if (!retention) {
        usageError(retention.error());
        return;
    }
    for (const HistoryOptions::StoredProblem& problem : std::as_const(storedProblems)) {
        err() << fullName() << ": " << QDir::toNativeSeparators(SettingsFile::path(m_dataDir))
              << ": " << problem.key << " \"" << problem.text << "\" ignored: " << problem.problem
              << '\n';
    }
    const RetentionPolicy policy = *retention;
    int deleted = 0;
    if (historyExists()) {
        HistoryStore* history = openHistory();
        if (!history)
            return;
        const Expected<int> pruned = history->retention().prune(policy);
        if (!pruned) {
            historyFailed("prune", pruned.error());
            return;
        }
        deleted = *pruned;
        // A file that cannot shrink (made by an old build or another tool) is rewritten once:
        // this command is run on purpose, unlike a server's pruning.
        HistoryRetention& kept = history->retention();
        const auto warnIfFailed = [this](const auto& step) {
            if (!step)
                err() << historyCommandName() << ": " << step.error() << '\n';
        };
        warnIfFailed(kept.enableIncrementalVacuum());
        warnIfFailed(kept.vacuumIfWorthIt());
        warnIfFailed(kept.pruneFiles(policy.maxFilesBytes));
    }
    out() << "Deleted " << deleted << " run(s).\n";
    finish(Ok);
}

} // namespace csm
