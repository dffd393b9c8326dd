#include "cli/Command.h"

#include <QTextStream>

namespace csm {

Command::Command(const Subcommands& table, QString word, QStringList arguments,
                 const QProcessEnvironment& environment, QTextStream& out, QTextStream& err,
                 QObject* parent)
    : QObject(parent)
    , m_table(table)
    , m_word(std::move(word))
    , m_arguments(std::move(arguments))
    , m_environment(environment)
    , m_out(out)
    , m_err(err)
{
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
}

Command::~Command() = default;

const QCommandLineOption& Command::jsonOption()
{
    static const QCommandLineOption json(QStringLiteral("json"),
                                         QStringLiteral("Print JSON instead of a readable text."));
    return json;
}

QString Command::fullName() const
{
    return m_table.command() + u' ' + m_word;
}

void Command::start()
{
    Q_ASSERT(!m_started);
    m_started = true;
    if (m_word.isEmpty()) {
        if (const std::optional<int> exitCode =
                m_table.answerWithoutSubcommand(m_arguments, m_out, m_err)) {
            finish(*exitCode);
            return;
        }
        m_word = m_arguments.takeFirst();
    }
    if (parse())
        run();
}

bool Command::parse()
{
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help and exit."));
    const Syntax declared = syntax();
    m_parser.addOption(help);
    m_parser.addOptions(declared.options);
    if (!m_parser.parse(QStringList{m_table.command()} + m_arguments)) {
        usageError(m_parser.errorText());
        return false;
    }
    if (m_parser.isSet(help)) {
        m_out << m_table.help(m_parser, declared.usage, declared.description);
        finish(Ok);
        return false;
    }
    m_positional = m_parser.positionalArguments();
    if (declared.maxArguments && m_positional.size() > *declared.maxArguments) {
        usageError(QStringLiteral("unexpected argument \"%1\"")
                       .arg(m_positional.at(*declared.maxArguments)));
        return false;
    }
    return true;
}

void Command::usageError(const QString& message)
{
    finish(m_table.usageError(m_err, m_word, message));
}

void Command::fail(const QString& message)
{
    m_err << fullName() << ": " << message << '\n';
    finish(Failed);
}

void Command::finish(int exitCode)
{
    Q_ASSERT(!m_finishing);
    m_finishing = true;
    m_out.flush();
    m_err.flush();
    QMetaObject::invokeMethod(
        this, [this, exitCode] { Q_EMIT finished(exitCode); }, Qt::QueuedConnection);
}

} // namespace csm
