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

#include <QCommandLineParser>
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

const QString& commandName()
{
    static const QString name = QStringLiteral("code-sandbox-mcp history");
    return name;
}

const Subcommands& subcommands()
{
    static const Subcommands commands(
        commandName(),
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

// The history for a command; a missing file is an empty history, not created by reading it.
class StoreAccess final
{
public:
    StoreAccess(QString path, QTextStream& err)
        : m_path(std::move(path))
        , m_err(err)
    {}

    bool exists() const { return QFileInfo::exists(m_path); }

    HistoryStore* open()
    {
        QString error;
        m_store = HistoryStore::open(m_path, &error);
        if (!m_store)
            m_err << "code-sandbox-mcp history: " << error << '\n';
        return m_store.get();
    }

    void fail(const char* what)
    {
        m_err << "code-sandbox-mcp history: cannot " << what << " the run history "
              << QDir::toNativeSeparators(m_path) << ": " << m_store->lastError() << '\n';
    }

private:
    QString m_path;
    QTextStream& m_err;
    std::unique_ptr<HistoryStore> m_store;
};

std::optional<int> wholeNumber(const QString& text, int minimum)
{
    bool ok = false;
    const int value = text.toInt(&ok);
    if (!ok || value < minimum)
        return std::nullopt;
    return value;
}

int usageError(QTextStream& err, const QString& command, const QString& message)
{
    return subcommands().usageError(err, command, message);
}

} // namespace

int HistoryCommand::run(const QStringList& arguments, const QProcessEnvironment& environment,
                        QTextStream& out, QTextStream& err)
{
    const auto chosen = subcommands().choose(arguments, out, err);
    if (const int* exitCode = std::get_if<int>(&chosen))
        return *exitCode;
    const QString command = std::get<QString>(chosen);
    const bool list = command == QLatin1String("list");
    const bool show = command == QLatin1String("show");
    const bool exportRuns = command == QLatin1String("export");

    const HistoryOptions historyOptions;
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help and exit."));
    const QCommandLineOption json(QStringLiteral("json"),
                                  QStringLiteral("Print JSON instead of a readable text."));
    const QCommandLineOption limit(
        QStringLiteral("limit"),
        QStringLiteral("Show the newest N runs (default %1; 0: all).").arg(kDefaultListLimit),
        QStringLiteral("N"));
    const QCommandLineOption format(QStringLiteral("format"),
                                    QStringLiteral("json or csv (with a header row)."),
                                    QStringLiteral("format"));

    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    parser.addOptions({help, historyOptions.dataDir()});
    QString usage;
    QString description;
    if (list) {
        parser.addOptions({json, limit});
        usage = QStringLiteral("list [--json] [--limit N]");
        description = QStringLiteral("The newest runs, newest first.");
    } else if (show) {
        parser.addOption(json);
        usage = QStringLiteral("show ID [--json]");
        description = QStringLiteral("One run, with every field.");
    } else if (exportRuns) {
        parser.addOption(format);
        usage = QStringLiteral("export --format json|csv [FILE]");
        description = QStringLiteral("Every run, newest first, to FILE or to stdout.");
    } else {
        parser.addOptions(historyOptions.retentionOptions());
        usage = QStringLiteral(
            "prune [--history-max-runs N] [--history-max-days N] [--history-max-mb N]");
        description = QStringLiteral(
            "Deletes ended runs beyond the retention limits: those of the flags, else those of "
            "settings.ini in the data folder (as the servers use them), else the defaults.");
    }
    if (!parser.parse(QStringList{commandName()} + arguments.mid(1)))
        return usageError(err, command, parser.errorText());
    if (parser.isSet(help)) {
        out << subcommands().help(parser, usage, description);
        return Ok;
    }
    const QStringList positional = parser.positionalArguments();
    const int allowedPositional = (show || exportRuns) ? 1 : 0;
    if (positional.size() > allowedPositional)
        return usageError(
            err, command,
            QStringLiteral("unexpected argument \"%1\"").arg(positional.at(allowedPositional)));

    const QString dataDir =
        HistoryLocation::dataDir(parser.value(historyOptions.dataDir()), environment);
    StoreAccess store(HistoryLocation::historyPath(dataDir), err);

    if (list) {
        int count = kDefaultListLimit;
        if (parser.isSet(limit)) {
            const auto value = wholeNumber(parser.value(limit), 0);
            if (!value)
                return usageError(err, command,
                                  QStringLiteral("--limit must be a whole number, 0 or more"));
            count = *value;
        }
        QList<RunRecord> runs;
        if (store.exists()) {
            HistoryStore* history = store.open();
            if (!history)
                return Failed;
            HistoryQuery query;
            query.limit = count;
            query.includeContent = parser.isSet(json);
            query.previewChars = 400;
            runs = history->list(query);
            if (!history->lastError().isEmpty()) {
                store.fail("read");
                return Failed;
            }
        }
        if (parser.isSet(json)) {
            QJsonArray array;
            for (const RunRecord& run : std::as_const(runs))
                array.append(RunExporter::toJson(run));
            out << QString::fromUtf8(QJsonDocument(array).toJson(QJsonDocument::Indented));
        } else if (runs.isEmpty()) {
            out << "No runs recorded.\n";
        } else {
            printTable(runs, out);
        }
        return Ok;
    }

    if (show) {
        if (positional.isEmpty())
            return usageError(err, command, QStringLiteral("which run? Give its ID"));
        bool ok = false;
        const qint64 id = positional.constFirst().toLongLong(&ok);
        if (!ok || id <= 0)
            return usageError(
                err, command,
                QStringLiteral("\"%1\" is not a run ID (a number)").arg(positional.constFirst()));
        std::optional<RunRecord> run;
        if (store.exists()) {
            HistoryStore* history = store.open();
            if (!history)
                return Failed;
            run = history->get(id);
            if (!run && !history->lastError().isEmpty()) {
                store.fail("read");
                return Failed;
            }
        }
        if (!run) {
            err << commandName() << " show: no run " << id << '\n';
            return Failed;
        }
        if (parser.isSet(json))
            out << QString::fromUtf8(
                QJsonDocument(RunExporter::toJson(*run)).toJson(QJsonDocument::Indented));
        else
            printRun(*run, out);
        return Ok;
    }

    if (exportRuns) {
        const auto exportFormat = RunExporter::parseFormat(parser.value(format));
        if (!exportFormat)
            return usageError(err, command, QStringLiteral("--format must be json or csv"));
        HistoryStore* history = nullptr;
        if (store.exists()) {
            history = store.open();
            if (!history)
                return Failed;
        }
        // A page at a time, so that a large history is never all in memory.
        const auto fill = [history](RunExporter& exporter, QString* error) {
            std::optional<qint64> before;
            while (history) {
                HistoryQuery query;
                query.limit = kExportPage;
                query.beforeId = before;
                const QList<RunRecord> page = history->list(query);
                if (!history->lastError().isEmpty()) {
                    *error = history->lastError();
                    return false;
                }
                for (const RunRecord& run : page)
                    exporter.add(run);
                if (page.size() < kExportPage)
                    break;
                before = page.constLast().id;
            }
            return true;
        };
        QString error;
        if (positional.isEmpty()) {
            RunExporter exporter(out, *exportFormat);
            if (!fill(exporter, &error)) {
                store.fail("read");
                return Failed;
            }
            exporter.finish();
            return Ok;
        }
        if (!RunExporter::writeFile(positional.constFirst(), *exportFormat, fill, &error)) {
            if (history && !history->lastError().isEmpty())
                store.fail("read");
            else
                err << commandName() << " export: " << error << '\n';
            return Failed;
        }
        return Ok;
    }

    // prune
    const SettingsFile stored(dataDir);
    QList<HistoryOptions::StoredProblem> storedProblems;
    const auto retention = historyOptions.retention(parser, &stored, &storedProblems);
    if (const auto* problem = std::get_if<QString>(&retention))
        return usageError(err, command, *problem);
    for (const HistoryOptions::StoredProblem& problem : std::as_const(storedProblems)) {
        err << commandName() << " prune: " << QDir::toNativeSeparators(SettingsFile::path(dataDir))
            << ": " << problem.key << " \"" << problem.text << "\" ignored: " << problem.problem
            << '\n';
    }
    const RetentionPolicy policy = std::get<RetentionPolicy>(retention);
    int deleted = 0;
    if (store.exists()) {
        HistoryStore* history = store.open();
        if (!history)
            return Failed;
        deleted = history->prune(policy);
        if (!history->lastError().isEmpty()) {
            out << "Deleted " << deleted << " run(s) before an error.\n";
            store.fail("prune");
            return Failed;
        }
        // A file that cannot shrink (made by an old build or another tool) is rewritten once:
        // this command is run on purpose, unlike a server's pruning.
        history->enableIncrementalVacuum();
        history->vacuumIfWorthIt();
    }
    out << "Deleted " << deleted << " run(s).\n";
    return Ok;
}

} // namespace csm
