#include "runtime/EngineJob.h"

#include <QProcess>
#include <QRegularExpression>

#include <unistd.h>

namespace csm {

namespace {
constexpr qsizetype kErrorsCap = 16 * 1024;
} // namespace

EngineJob::EngineJob(Command command, QObject* parent)
    : QObject(parent)
    , m_command(std::move(command))
{
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (!isRunning())
            return;
        Q_EMIT killedAfterGrace();
        m_process->kill();
    });
}

EngineJob::~EngineJob()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->terminate();
    }
}

QString EngineJob::commandLine() const
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
    QStringList words;
    for (QString word : QStringList{m_command.program} + m_command.arguments) {
        if (const qsizetype lineEnd = word.indexOf(u'\n'); lineEnd >= 0) {
            const QString rest = word.mid(lineEnd + 1);
            const qsizetype more =
                rest.isEmpty() ? 0 : rest.count(u'\n') + (rest.endsWith(u'\n') ? 0 : 1);
            word = more == 0
                       ? word.left(lineEnd)
                       : QStringLiteral("%1 …(%2 more %3)")
                             .arg(word.left(lineEnd))
                             .arg(more)
                             .arg(more == 1 ? QStringLiteral("line") : QStringLiteral("lines"));
        }
        if (plain.match(word).hasMatch())
            words << word;
        else
            words << QLatin1Char('\'') + QString(word).replace(u'\'', QStringLiteral("'\\''")) +
                         QLatin1Char('\'');
    }
    return words.join(u' ');
}

qint64 EngineJob::processId() const
{
    return m_process ? m_process->processId() : 0;
}

void EngineJob::start()
{
    if (m_process)
        return;
    m_process = new QProcess(this);
    m_process->setProgram(m_command.program);
    m_process->setArguments(m_command.arguments);
    m_process->setProcessEnvironment(m_command.environment);
    if (m_command.separateErrors) {
        connect(m_process, &QProcess::readyReadStandardError, this, [this] {
            const QByteArray bytes = m_process->readAllStandardError();
            m_errors += bytes.left(kErrorsCap - m_errors.size());
        });
    } else {
        m_process->setProcessChannelMode(QProcess::MergedChannels);
    }
    m_process->setChildProcessModifier([] { ::setsid(); });
    connect(m_process, &QProcess::readyReadStandardOutput, this, &EngineJob::onOutput);
    connect(
        m_process, &QProcess::finished, this, [this](int exitCode, QProcess::ExitStatus status) {
            onEnded(status == QProcess::NormalExit ? Ending::Exited : Ending::Crashed, exitCode);
        });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            onEnded(Ending::FailedToStart, -1);
    });
    m_clock.start();
    QProcess* process = m_process;
    process->start();
    // A program that cannot be started has already ended the job (errorOccurred) by now.
    if (m_ending != Ending::Running)
        return;
    if (!m_command.input.isEmpty())
        process->write(m_command.input);
    process->closeWriteChannel();
}

void EngineJob::cancel()
{
    if (!isRunning() || m_cancelled)
        return;
    m_cancelled = true;
    m_process->terminate();
    m_killTimer.start(kCancelGraceMs);
}

void EngineJob::onOutput()
{
    QString text = m_decoder.decode(m_process->readAllStandardOutput());
    if (m_command.keepOutput)
        m_output += text;
    // Progress bars redraw a line with \r: each state becomes a line.
    text.replace(QStringLiteral("\r\n"), QStringLiteral("\n")).replace(u'\r', u'\n');
    m_partialLine += text;
    const qsizetype end = m_partialLine.lastIndexOf(u'\n');
    if (end < 0)
        return;
    const QStringList lines = m_partialLine.left(end).split(u'\n');
    m_partialLine.remove(0, end + 1);
    for (const QString& line : lines) {
        if (!line.isEmpty())
            Q_EMIT lineReceived(line);
    }
}

void EngineJob::onEnded(Ending ending, int exitCode)
{
    if (m_ending != Ending::Running)
        return;
    onOutput();
    if (!m_partialLine.isEmpty())
        Q_EMIT lineReceived(std::exchange(m_partialLine, {}));
    if (m_command.separateErrors)
        m_errors += m_process->readAllStandardError().left(kErrorsCap - m_errors.size());
    m_killTimer.stop();
    m_ending = ending;
    m_exitCode = exitCode;
    m_elapsedMs = m_clock.elapsed();
    m_errorString = m_process->errorString();
    Q_EMIT finished();
}

} // namespace csm
