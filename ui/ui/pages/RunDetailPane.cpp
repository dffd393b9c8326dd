#include "ui/pages/RunDetailPane.h"

#include "ui/widgets/CodeView.h"
#include "ui/widgets/RunFilesView.h"

#include <QFontDatabase>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QVBoxLayout>

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

QString summaryOf(const RunRecord& run)
{
    QStringList parts{
        QStringLiteral("#%1").arg(run.id),
        RunStatusTraits::toString(run.status),
    };
    if (run.exitCode)
        parts << QObject::tr("exit %1").arg(*run.exitCode);
    if (RunStatusTraits::isFinal(run.status))
        parts << QObject::tr("%1 ms").arg(run.durationMs);
    parts << run.tool << run.image;
    if (!run.clientName.isEmpty())
        parts << QObject::tr("from %1 %2 over %3")
                     .arg(run.clientName, run.clientVersion, run.transport)
                     .simplified();
    QString summary = parts.join(QStringLiteral(" · "));
    if (!run.errorMessage.isEmpty())
        summary += QLatin1Char('\n') + run.errorMessage;
    return summary;
}

} // namespace

RunDetailPane::RunDetailPane(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_code(new CodeView(this))
    , m_stdout(monospaceView(this))
    , m_stderr(monospaceView(this))
    , m_limits(monospaceView(this))
    , m_files(new RunFilesView(this))
{
    m_summary->setWordWrap(true);
    // The client's name and version are the client's own words: text, never HTML.
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tabs->addTab(m_code, tr("Code"));
    m_tabs->addTab(m_stdout, tr("Stdout"));
    m_tabs->addTab(m_stderr, tr("Stderr"));
    m_tabs->addTab(m_files, tr("Files"));
    m_tabs->addTab(m_limits, tr("Limits"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    showRun(std::nullopt);
    // Stable names: tests find the widgets by them (findChild).
    m_summary->setObjectName(QStringLiteral("summary"));
    m_code->setObjectName(QStringLiteral("codeView"));
    m_stdout->setObjectName(QStringLiteral("stdout"));
    m_stderr->setObjectName(QStringLiteral("stderr"));
    m_limits->setObjectName(QStringLiteral("limits"));
    m_files->setObjectName(QStringLiteral("files"));
    m_tabs->setObjectName(QStringLiteral("detailTabs"));
}

void RunDetailPane::showRun(const std::optional<RunRecord>& run)
{
    m_runId = run ? run->id : 0;
    m_summary->setText(run ? summaryOf(*run) : tr("Select a run to see its code and output."));
    m_code->showCode(run ? run->code : QString(), run ? run->language : QString());
    m_stdout->setPlainText(run ? run->stdoutText : QString());
    m_stderr->setPlainText(run ? run->stderrText : QString());
    m_limits->setPlainText(run ? QString::fromUtf8(QJsonDocument(run->limits).toJson())
                               : QString());
    const QList<RunFileRecord> files = run ? run->files : QList<RunFileRecord>();
    m_files->showFiles(files);
    // The tab says at a glance whether there is anything in it.
    m_tabs->setTabText(m_tabs->indexOf(m_files),
                       files.isEmpty() ? tr("Files") : tr("Files (%1)").arg(files.size()));
}

} // namespace csm
