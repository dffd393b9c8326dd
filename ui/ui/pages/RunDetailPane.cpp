#include "ui/pages/RunDetailPane.h"

#include "core/ByteSize.h"
#include "ui/models/RunResultLine.h"
#include "ui/models/RunStatusLook.h"
#include "ui/widgets/CodeView.h"
#include "ui/widgets/RunFilesView.h"
#include "ui/widgets/RunNetworkView.h"

#include <QDateTime>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QTabWidget>
#include <QTextCursor>
#include <QVBoxLayout>

#include <algorithm>

namespace csm {

namespace {

QPlainTextEdit* monospaceView(QWidget* parent)
{
    auto* view = new QPlainTextEdit(parent);
    view->setReadOnly(true);
    view->setLineWrapMode(QPlainTextEdit::NoWrap);
    view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    return view;
}

QString secondsText(qint64 ms)
{
    return QObject::tr("%1 s").arg(QLocale::c().toString(double(ms) / 1000.0, 'g', 6));
}

// How a run could reach the network, by its egress mode (EgressModes' names).
QString egressText(const QString& mode)
{
    if (mode == QLatin1String("open"))
        return QObject::tr("public hosts and the ones allowed, through the proxy (egress: open)");
    if (mode == QLatin1String("allowlist"))
        return QObject::tr("only the hosts allowed, through the proxy (egress: allowlist)");
    if (mode == QLatin1String("ask"))
        return QObject::tr("the hosts allowed when asked, through the proxy (egress: ask)");
    if (mode == QLatin1String("none"))
        return QObject::tr("none (egress: none)");
    if (mode == QLatin1String("bridge"))
        return QObject::tr("the engine's bridge, unfiltered (egress: bridge)");
    return QObject::tr("egress: %1").arg(mode);
}

// The limits a run started under (RunCodeTool: isolation, memory_bytes, cpus, pids_limit,
// tmpfs_bytes, network, timeout_ms, output_cap_bytes, allow_unlimited; "unenforced" added when it
// ended), one per line as the Settings page names them; keys this build does not know come last, as
// they are.
QString limitsText(const QJsonObject& limits)
{
    struct Known
    {
        const char* key;
        const char* label;
        QString (*format)(const QJsonValue&);
    };
    static const Known known[] = {
        {"isolation", QT_TR_NOOP("Isolation"),
         [](const QJsonValue& v) {
             return v.toString() == QLatin1String("gvisor")
                        ? QObject::tr("gVisor (its own kernel, runsc)")
                        : QObject::tr("standard (this machine's kernel, seccomp)");
         }},
        {"memory_bytes", QT_TR_NOOP("Memory"),
         [](const QJsonValue& v) {
             return ByteSize::forPeople(v.toInteger());
         }},
        {"cpus", QT_TR_NOOP("CPUs"),
         [](const QJsonValue& v) {
             return QLocale::c().toString(v.toDouble(), 'g', 6);
         }},
        {"pids_limit", QT_TR_NOOP("Processes"),
         [](const QJsonValue& v) {
             return QString::number(v.toInteger());
         }},
        {"tmpfs_bytes", QT_TR_NOOP("Writable space"),
         [](const QJsonValue& v) {
             return ByteSize::forPeople(v.toInteger());
         }},
        {"network", QT_TR_NOOP("Network"),
         [](const QJsonValue& v) {
             return v.toString();
         }},
        {"timeout_ms", QT_TR_NOOP("Timeout"),
         [](const QJsonValue& v) {
             return secondsText(v.toInteger());
         }},
        {"output_cap_bytes", QT_TR_NOOP("Output cap"),
         [](const QJsonValue& v) {
             return ByteSize::forPeople(v.toInteger());
         }},
        {"allow_unlimited", QT_TR_NOOP("Limits the engine cannot enforce"),
         [](const QJsonValue& v) {
             return v.toBool() ? QObject::tr("allowed") : QObject::tr("refused");
         }},
    };
    QStringList lines;
    QJsonObject rest = limits;
    // The engine's network ("none" in proxy mode) and the egress mode say one thing together.
    if (const QString egress = rest.take(QLatin1String("egress")).toString(); !egress.isEmpty())
        rest.insert(QLatin1String("network"), egressText(egress));
    for (const Known& limit : known) {
        const QString key = QLatin1String(limit.key);
        if (!rest.contains(key))
            continue;
        lines << QStringLiteral("%1: %2").arg(QObject::tr(limit.label),
                                              limit.format(rest.take(key)));
    }
    const QJsonValue unenforced = rest.take(QLatin1String("unenforced"));
    if (!unenforced.toArray().isEmpty()) {
        QStringList names;
        for (const QJsonValue& name : unenforced.toArray())
            names << name.toString();
        lines << QObject::tr("Not enforced: %1").arg(names.join(QStringLiteral(", ")));
    }
    for (auto it = rest.constBegin(); it != rest.constEnd(); ++it) {
        const QJsonValue value = it.value();
        const QString shown =
            value.isString()
                ? value.toString()
                : QString::fromUtf8(QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact))
                      .mid(1)
                      .chopped(1);
        lines << QStringLiteral("%1: %2").arg(it.key(), shown);
    }
    return lines.join(QLatin1Char('\n'));
}

QString summaryOf(const RunRecord& run)
{
    QStringList parts{
        QStringLiteral("#%1").arg(run.id),
        RunStatusLook::label(run.status),
    };
    if (run.exitCode)
        parts << QObject::tr("exit %1").arg(*run.exitCode);
    if (RunStatusTraits::isFinal(run.status))
        parts << QObject::tr("%1 ms").arg(run.durationMs);
    if (run.startedAt.isValid())
        parts << QLocale().toString(run.startedAt.toLocalTime(), QLocale::ShortFormat);
    parts << run.tool << run.image;
    if (!run.clientName.isEmpty())
        parts << QObject::tr("from %1 %2 over %3")
                     .arg(run.clientName, run.clientVersion, run.transport)
                     .simplified();
    QString summary = parts.join(QStringLiteral(" · "));
    // The first line is the result line's; any more (a session's note) is said here.
    if (const QString rest = run.errorMessage.section(u'\n', 1).trimmed(); !rest.isEmpty())
        summary += QLatin1Char('\n') + rest;
    return summary;
}

} // namespace

RunDetailPane::RunDetailPane(QWidget* parent)
    : QWidget(parent)
    , m_result(new QLabel(this))
    , m_summary(new QLabel(this))
    , m_stop(new QPushButton(tr("Stop"), this))
    , m_jumpToEnd(new QPushButton(tr("Jump to end"), this))
    , m_tabs(new QTabWidget(this))
    , m_code(new CodeView(this))
    , m_stdout(monospaceView(this))
    , m_stderr(monospaceView(this))
    , m_limits(monospaceView(this))
    , m_files(new RunFilesView(this))
    , m_network(new RunNetworkView(this))
{
    m_result->setWordWrap(true);
    m_result->setTextFormat(Qt::PlainText);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont resultFont = m_result->font();
    resultFont.setBold(true);
    resultFont.setPointSizeF(resultFont.pointSizeF() * 1.15);
    m_result->setFont(resultFont);
    m_summary->setWordWrap(true);
    // The client's name and version are the client's own words: text, never HTML.
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tabs->addTab(m_code, tr("Code"));
    m_tabs->addTab(m_stdout, tr("Stdout"));
    m_tabs->addTab(m_stderr, tr("Stderr"));
    m_tabs->addTab(m_files, tr("Files"));
    m_tabs->addTab(m_network, tr("Network"));
    m_tabs->addTab(m_limits, tr("Limits"));
    m_stop->setToolTip(tr("Stop this run, as its assistant could cancel it: the container is "
                          "removed, and the assistant gets what the run printed so far"));
    connect(m_stop, &QPushButton::clicked, this, [this] {
        if (!showsRunningRun())
            return;
        setStopping();
        Q_EMIT stopRequested(m_run->id);
    });
    m_stopWait.setSingleShot(true);
    m_stopWait.setInterval(kStopAnswerMs);
    connect(&m_stopWait, &QTimer::timeout, this, [this] {
        // Still running: Stop can be tried again, and the pane says what may be wrong.
        m_stopAsked = false;
        m_stopUnanswered = true;
        m_stop->setEnabled(showsRunningRun());
        updateSummary();
    });
    // Scrolled up in a running run's output, the view stays put; this brings it back to the
    // end, where it follows what comes again.
    m_jumpToEnd->setToolTip(tr("Go to the end of the output and follow it as it grows"));
    m_jumpToEnd->hide();
    connect(m_jumpToEnd, &QPushButton::clicked, this, [this] {
        if (auto* view = qobject_cast<QPlainTextEdit*>(m_tabs->currentWidget()))
            view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum());
        updateJumpToEnd();
    });
    for (QPlainTextEdit* view : {m_stdout, m_stderr}) {
        connect(view->verticalScrollBar(), &QScrollBar::valueChanged, this,
                &RunDetailPane::updateJumpToEnd);
        connect(view->verticalScrollBar(), &QScrollBar::rangeChanged, this,
                &RunDetailPane::updateJumpToEnd);
    }
    connect(m_tabs, &QTabWidget::currentChanged, this, &RunDetailPane::updateJumpToEnd);
    m_elapsedTick.setInterval(kElapsedTickMs);
    connect(&m_elapsedTick, &QTimer::timeout, this, &RunDetailPane::updateSummary);
    auto* words = new QVBoxLayout;
    words->addWidget(m_result);
    words->addWidget(m_summary);
    auto* header = new QHBoxLayout;
    header->addLayout(words, 1);
    header->addWidget(m_jumpToEnd, 0, Qt::AlignTop);
    header->addWidget(m_stop, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(header);
    layout->addWidget(m_tabs, 1);
    showRun(std::nullopt);
    // Stable names: tests find the widgets by them (findChild).
    m_result->setObjectName(QStringLiteral("resultLine"));
    m_summary->setObjectName(QStringLiteral("summary"));
    m_stop->setObjectName(QStringLiteral("stopButton"));
    m_jumpToEnd->setObjectName(QStringLiteral("jumpToEnd"));
    m_code->setObjectName(QStringLiteral("codeView"));
    m_stdout->setObjectName(QStringLiteral("stdout"));
    m_stderr->setObjectName(QStringLiteral("stderr"));
    m_limits->setObjectName(QStringLiteral("limits"));
    m_files->setObjectName(QStringLiteral("files"));
    m_network->setObjectName(QStringLiteral("network"));
    m_tabs->setObjectName(QStringLiteral("detailTabs"));
}

namespace {

// Shows `text` in `view` instead of what it shows, keeping where it was scrolled to (scrolled
// to the end, or not scrollable yet, it stays at the end: it follows new output). Output that
// only grew is appended, so that a selection being made stays; a tail that moved on (past
// 64 KiB) or the run's full output at its end replace the text.
void replaceOutput(QPlainTextEdit* view, const QString& text)
{
    const QString shown = view->toPlainText();
    if (shown == text)
        return;
    QScrollBar* bar = view->verticalScrollBar();
    const bool following = bar->value() >= bar->maximum();
    const int value = bar->value();
    const int column = view->horizontalScrollBar()->value();
    if (!shown.isEmpty() && text.startsWith(shown)) {
        QTextCursor end(view->document());
        end.movePosition(QTextCursor::End);
        end.insertText(text.mid(shown.size()));
    } else {
        view->setPlainText(text);
    }
    bar->setValue(following ? bar->maximum() : value);
    view->horizontalScrollBar()->setValue(column);
}

} // namespace

QWidget* RunDetailPane::mostUsefulTab(const RunRecord& run) const
{
    const bool printed = !run.stdoutText.isEmpty();
    const bool complained = !run.stderrText.isEmpty();
    switch (run.status) {
    case RunStatus::Running:
        // The live tail: where the program prints, or the output it will print to.
        return !printed && complained ? m_stderr : m_stdout;
    case RunStatus::Ok: {
        const bool chart = std::any_of(run.files.cbegin(), run.files.cend(), [](const auto& file) {
            return file.direction == RunFileRecord::Direction::Output &&
                   file.mimeType.startsWith(QLatin1String("image/")) && !file.storedPath.isEmpty();
        });
        if (chart)
            return m_files;
        if (printed)
            return m_stdout;
        return complained ? m_stderr : m_code;
    }
    case RunStatus::EngineError:
        return m_code; // nothing ran: the result line says why
    case RunStatus::Error:
    case RunStatus::Timeout:
    case RunStatus::Oom:
    case RunStatus::Cancelled:
    case RunStatus::Interrupted:
        break;
    }
    if (complained)
        return m_stderr;
    return printed ? m_stdout : m_code;
}

void RunDetailPane::updateJumpToEnd()
{
    QWidget* shown = m_tabs->currentWidget();
    bool scrolledUp = false;
    if (shown == m_stdout || shown == m_stderr) {
        const QScrollBar* bar = static_cast<QPlainTextEdit*>(shown)->verticalScrollBar();
        scrolledUp = bar->value() < bar->maximum();
    }
    m_jumpToEnd->setVisible(showsRunningRun() && scrolledUp);
}

bool RunDetailPane::showsRunningRun() const
{
    return m_run && !RunStatusTraits::isFinal(m_run->status);
}

void RunDetailPane::updateSummary()
{
    if (!m_run) {
        m_result->clear();
        m_result->hide();
        m_summary->setText(tr("Select a run to see its code and output."));
        return;
    }
    QString result = RunResultLine::of(*m_run, QDateTime::currentDateTime());
    if (const QString network = RunResultLine::network(*m_run); !network.isEmpty())
        result += QLatin1Char('\n') + network;
    m_result->setText(result);
    QPalette colours = m_result->palette();
    colours.setColor(QPalette::WindowText, RunStatusLook::colour(m_run->status, palette()));
    m_result->setPalette(colours);
    m_result->show();
    QString note;
    if (showsRunningRun() && m_stopAsked)
        note = tr("\nStopping…");
    else if (showsRunningRun() && m_stopUnanswered)
        note = tr("\nIts server has not stopped it: the server may be of an older version, or no "
                  "longer running (its run then shows as interrupted when a server starts).");
    m_summary->setText(summaryOf(*m_run) + note);
}

void RunDetailPane::setStopping()
{
    m_stopAsked = true;
    m_stopUnanswered = false;
    m_stop->setEnabled(false);
    m_stopWait.start();
    updateSummary();
}

void RunDetailPane::stopFailed()
{
    m_stopAsked = false;
    m_stopWait.stop();
    m_stop->setEnabled(showsRunningRun());
    updateSummary();
}

void RunDetailPane::showRun(const std::optional<RunRecord>& run)
{
    const bool sameRun = run && m_run && run->id == m_run->id;
    if (!sameRun) {
        m_stopAsked = false;
        m_stopUnanswered = false;
        m_stopWait.stop();
    }
    m_run = run;
    updateSummary();
    m_stop->setVisible(showsRunningRun());
    m_stop->setEnabled(showsRunningRun() && !m_stopAsked);
    updateJumpToEnd();
    if (showsRunningRun())
        m_elapsedTick.start();
    else
        m_elapsedTick.stop();
    if (sameRun) {
        // The same run printed more, or ended: what the person reads or scrolled to stays.
        replaceOutput(m_stdout, run->stdoutText);
        replaceOutput(m_stderr, run->stderrText);
    } else {
        m_code->showCode(run ? run->code : QString(), run ? run->language : QString());
        m_stdout->setPlainText(run ? run->stdoutText : QString());
        m_stderr->setPlainText(run ? run->stderrText : QString());
        if (run)
            m_tabs->setCurrentWidget(mostUsefulTab(*run));
        // A running run opens at the end of its output, and so follows it as it grows
        // (replaceOutput); an ended one opens at its start.
        if (showsRunningRun()) {
            for (QPlainTextEdit* view : {m_stdout, m_stderr})
                view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum());
        }
    }
    m_limits->setPlainText(run ? limitsText(run->limits) : QString());
    const QList<RunFileRecord> files = run ? run->files : QList<RunFileRecord>();
    m_files->showFiles(files);
    // The tab says at a glance whether there is anything in it.
    m_tabs->setTabText(m_tabs->indexOf(m_files),
                       files.isEmpty() ? tr("Files") : tr("Files (%1)").arg(files.size()));
    const QList<RunConnectionRecord> connections =
        run ? run->connections : QList<RunConnectionRecord>();
    const int notListed = run ? run->connectionsNotListed : 0;
    m_network->showConnections(connections, notListed);
    m_tabs->setTabText(m_tabs->indexOf(m_network),
                       RunNetworkView::tabTitle(connections, notListed));
}

} // namespace csm
