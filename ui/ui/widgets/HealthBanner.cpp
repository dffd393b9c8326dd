#include "ui/widgets/HealthBanner.h"

#include "core/FileContentWatcher.h"
#include "runtime/EngineHealthCheck.h"
#include "server/ServerSettings.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace csm {

HealthBanner::HealthBanner(const QString& dataDir, QWidget* parent)
    : QFrame(parent)
    , m_dataDir(dataDir)
    , m_check(new EngineHealthCheck(this))
    , m_settingsWatcher(new FileContentWatcher(ServerSettings::filePath(dataDir), this))
    , m_rows(new QWidget(this))
    , m_rowsLayout(new QVBoxLayout(m_rows))
    , m_recheck(new QPushButton(tr("Check again"), this))
{
    setObjectName(QStringLiteral("healthBanner"));
    setFrameShape(QFrame::StyledPanel);
    // A warning colour that reads in light and dark themes alike.
    setStyleSheet(QStringLiteral("#healthBanner { background: rgba(255, 190, 0, 60); "
                                 "border: 1px solid rgba(200, 140, 0, 160); }"));
    m_rowsLayout->setContentsMargins(0, 0, 0, 0);
    auto* layout = new QHBoxLayout(this);
    layout->addWidget(m_rows, 1);
    layout->addWidget(m_recheck, 0, Qt::AlignTop);

    connect(m_recheck, &QPushButton::clicked, this, &HealthBanner::recheck);
    connect(m_check, &EngineHealthCheck::finished, this, &HealthBanner::showProblems);
    connect(m_settingsWatcher, &FileContentWatcher::contentChanged, this, &HealthBanner::recheck);
    m_settingsWatcher->start();
    hide();
    recheck();
    // Stable names: tests find the widgets by them (findChild).
    m_recheck->setObjectName(QStringLiteral("recheckButton"));
}

HealthBanner::~HealthBanner() = default;

bool HealthBanner::isChecking() const
{
    return m_check->isRunning();
}

void HealthBanner::recheck()
{
    m_recheck->setEnabled(false);
    m_check->start(ServerSettings::load(m_dataDir).engineChoice());
}

QString HealthBanner::text() const
{
    QStringList lines;
    for (const QLabel* label : m_labels)
        lines << label->text();
    return lines.join(u'\n');
}

void HealthBanner::showProblems(const QList<HealthProblem>& problems)
{
    m_problems = problems;
    qDeleteAll(m_rows->findChildren<QWidget*>(QString(), Qt::FindDirectChildrenOnly));
    m_labels.clear();
    for (const HealthProblem& problem : problems) {
        auto* row = new QWidget(m_rows);
        auto* rowLayout = new QHBoxLayout(row);
        rowLayout->setContentsMargins(0, 0, 0, 0);
        QPushButton* fix = nullptr;
        QString text = problem.message;
        if (problem.kind == HealthProblem::Kind::ImageMissing && problem.language) {
            const Language language = *problem.language;
            if (problem.defaultImage) {
                fix = new QPushButton(tr("Build"), row);
                connect(fix, &QPushButton::clicked, this,
                        [this, language] { Q_EMIT buildRequested(language); });
            } else if (problem.pullable) {
                fix = new QPushButton(tr("Pull"), row);
                connect(fix, &QPushButton::clicked, this,
                        [this, image = problem.image] { Q_EMIT pullRequested(image); });
            } else {
                text += tr(" — fix: %1").arg(problem.fixCommand);
            }
            if (fix) {
                fix->setToolTip(problem.fixCommand);
                fix->setObjectName(QStringLiteral("fixButton"));
            }
        } else if (!problem.fixCommand.isEmpty()) {
            text += tr(" — fix: %1").arg(problem.fixCommand);
        }
        auto* label = new QLabel(text, row);
        label->setWordWrap(true);
        label->setTextFormat(Qt::PlainText);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        rowLayout->addWidget(label, 1);
        if (fix)
            rowLayout->addWidget(fix);
        m_rowsLayout->addWidget(row);
        m_labels << label;
    }
    m_recheck->setEnabled(true);
    setVisible(!problems.isEmpty());
    Q_EMIT checked();
}

} // namespace csm
