#include "cli/Subcommands.h"

#include <QCommandLineParser>
#include <QTextStream>

#include <algorithm>

namespace csm {

namespace {
// Synopses longer than this put their summary on the next line.
constexpr qsizetype kMaxSynopsisColumn = 32;
} // namespace

Subcommands::Subcommands(QString command, QString description, QList<Entry> entries, QString footer)
    : m_command(std::move(command))
    , m_description(std::move(description))
    , m_entries(std::move(entries))
    , m_footer(std::move(footer))
{}

const Subcommands::Entry* Subcommands::find(const QString& name) const
{
    const auto found = std::find_if(m_entries.cbegin(), m_entries.cend(),
                                    [&name](const Entry& entry) { return entry.name == name; });
    return found == m_entries.cend() ? nullptr : &*found;
}

QString Subcommands::commandList() const
{
    qsizetype column = 0;
    for (const Entry& entry : m_entries) {
        if (entry.synopsis.size() <= kMaxSynopsisColumn)
            column = std::max(column, entry.synopsis.size());
    }
    column += 3;
    QString text = QStringLiteral("Commands:\n");
    for (const Entry& entry : m_entries) {
        const QString synopsis = QStringLiteral("  ") + entry.synopsis;
        if (entry.synopsis.size() <= kMaxSynopsisColumn)
            text += synopsis.leftJustified(column + 2) + entry.summary + u'\n';
        else
            text += synopsis + u'\n' + QString(column + 2, u' ') + entry.summary + u'\n';
    }
    return text;
}

QString Subcommands::overview() const
{
    QString text = QStringLiteral("Usage: %1 <command> [options]\n").arg(m_command);
    if (!m_description.isEmpty())
        text += m_description + u'\n';
    text += u'\n' + commandList();
    if (!m_footer.isEmpty())
        text += u'\n' + m_footer;
    return text;
}

std::optional<int> Subcommands::answerWithoutSubcommand(const QStringList& arguments,
                                                        QTextStream& out, QTextStream& err) const
{
    if (arguments.isEmpty()) {
        err << overview();
        return Usage;
    }
    const QString& name = arguments.constFirst();
    if (isHelpWord(name)) {
        out << overview();
        return Ok;
    }
    if (!find(name)) {
        QStringList names;
        for (const Entry& entry : m_entries)
            names << entry.name;
        const QString last = names.takeLast();
        err << m_command << ": unknown command \"" << name << "\" (use "
            << (names.isEmpty() ? last
                                : names.join(QStringLiteral(", ")) + QStringLiteral(" or ") + last)
            << ")\n\n"
            << overview();
        return Usage;
    }
    return std::nullopt;
}

std::optional<int> Subcommands::dispatch(const QStringList& arguments) const
{
    if (arguments.isEmpty())
        return std::nullopt;
    const Entry* entry = find(arguments.constFirst());
    if (!entry || !entry->run)
        return std::nullopt;
    return entry->run(arguments.mid(1));
}

bool Subcommands::isHelpWord(const QString& argument)
{
    return argument == QLatin1String("-h") || argument == QLatin1String("--help") ||
           argument == QLatin1String("help");
}

QString Subcommands::help(const QCommandLineParser& parser, const QString& usage,
                          const QString& description) const
{
    QString options = parser.helpText();
    const qsizetype at = options.indexOf(QLatin1String("Options:"));
    options = at >= 0 ? options.mid(at) : QString();
    return QStringLiteral("Usage: %1 %2\n%3\n\n%4").arg(m_command, usage, description, options);
}

int Subcommands::usageError(QTextStream& err, const QString& subcommand,
                            const QString& message) const
{
    const QString where = subcommand.isEmpty() ? m_command : m_command + u' ' + subcommand;
    err << where << ": " << message << '\n' << "Try '" << where << " --help'.\n";
    return Usage;
}

} // namespace csm
