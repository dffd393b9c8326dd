#include "ui/dialogs/SetupDialog.h"

#include "server/ServerSettings.h"
#include "ui/ImageOperations.h"
#include "ui/settings/DesktopSettings.h"
#include "ui/widgets/HealthBanner.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace csm {

namespace {
// The room the builder's log gets once it shows; until then the dialog is as tall as its text.
constexpr int kHeightWithLog = 520;
// The layout's last stretch: it takes the room the hidden log leaves, so that nothing else
// spreads out over it.
constexpr int kStretchWithoutLog = 1;

bool isMissingDefaultImage(const HealthProblem& problem)
{
    return problem.kind == HealthProblem::Kind::ImageMissing && problem.defaultImage &&
           problem.language;
}

bool isMissingChosenImage(const HealthProblem& problem)
{
    return problem.kind == HealthProblem::Kind::ImageMissing && !problem.defaultImage &&
           problem.language;
}
} // namespace

SetupDialog::SetupDialog(const QString& dataDir, HealthBanner& health, ImageOperations& images,
                         QWidget* parent)
    : QDialog(parent)
    , m_dataDir(dataDir)
    , m_health(health)
    , m_images(images)
    , m_problems(new QLabel(this))
    , m_build(new QPushButton(tr("Build the missing images"), this))
    , m_useDefaults(new QPushButton(tr("Use the built-in images instead"), this))
    , m_checkAgain(new QPushButton(tr("Check again"), this))
    , m_progress(new QProgressBar(this))
    , m_log(new QPlainTextEdit(this))
    , m_finish(new QPushButton(tr("Start using Code Sandbox"), this))
    , m_skip(new QPushButton(tr("Skip for now"), this))
{
    setWindowTitle(tr("Set up Code Sandbox"));
    auto* intro = new QLabel(tr("Code Sandbox runs each program in a fresh container. Before "
                                "the first run, it needs a container engine (Podman or Docker) "
                                "and an image for each language."),
                             this);
    intro->setWordWrap(true);
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setVisible(false);
    m_log->setReadOnly(true);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setPlaceholderText(tr("What the image builder does shows here."));
    m_log->setVisible(false);

    auto* fixes = new QHBoxLayout;
    fixes->addWidget(m_build);
    fixes->addWidget(m_useDefaults);
    fixes->addWidget(m_checkAgain);
    fixes->addStretch(1);
    auto* closing = new QHBoxLayout;
    closing->addStretch(1);
    closing->addWidget(m_skip);
    closing->addWidget(m_finish);
    m_layout = new QVBoxLayout(this);
    m_layout->addWidget(intro);
    m_layout->addWidget(m_problems);
    m_layout->addLayout(fixes);
    m_layout->addWidget(m_progress);
    m_layout->addWidget(m_log, 1);
    m_layout->addStretch(kStretchWithoutLog);
    m_layout->addLayout(closing);
    resize(760, sizeHint().height());

    connect(m_build, &QPushButton::clicked, this, &SetupDialog::buildMissingImages);
    connect(m_useDefaults, &QPushButton::clicked, this, &SetupDialog::useDefaultImages);
    connect(m_checkAgain, &QPushButton::clicked, &m_health, &HealthBanner::recheck);
    connect(m_finish, &QPushButton::clicked, this, [this] { finish(true); });
    connect(m_skip, &QPushButton::clicked, this, [this] { finish(true); });
    connect(&m_health, &HealthBanner::checked, this, &SetupDialog::showProblems);
    connect(&m_images, &ImageOperations::logged, this, [this](const QString& text) {
        if (isBuilding())
            m_log->appendPlainText(text);
    });
    connect(&m_images, &ImageOperations::finished, this,
            [this](bool ok, bool) { onBuildFinished(ok); });
    showProblems();
    // Stable names: tests find the widgets by them (findChild).
    m_problems->setObjectName(QStringLiteral("problemsText"));
    m_build->setObjectName(QStringLiteral("buildButton"));
    m_useDefaults->setObjectName(QStringLiteral("useDefaultsButton"));
    m_checkAgain->setObjectName(QStringLiteral("checkAgainButton"));
    m_finish->setObjectName(QStringLiteral("finishButton"));
    m_skip->setObjectName(QStringLiteral("skipButton"));
    m_progress->setObjectName(QStringLiteral("progress"));
    m_log->setObjectName(QStringLiteral("log"));
}

void SetupDialog::showProblems()
{
    const QList<HealthProblem>& problems = m_health.problems();
    QStringList lines;
    bool anyDefaultMissing = false;
    bool anyChosenMissing = false;
    for (const HealthProblem& problem : problems) {
        QString line = QStringLiteral("• ") + problem.message.toHtmlEscaped();
        // A missing image has a button instead, unless building it here failed.
        if ((problem.kind != HealthProblem::Kind::ImageMissing || m_buildFailed) &&
            !problem.fixCommand.isEmpty())
            line += tr("<br>&nbsp;&nbsp;Run in a terminal: <code>%1</code>")
                        .arg(problem.fixCommand.toHtmlEscaped());
        lines << line;
        anyDefaultMissing = anyDefaultMissing || isMissingDefaultImage(problem);
        anyChosenMissing = anyChosenMissing || isMissingChosenImage(problem);
    }
    const bool engineWorks = std::none_of(problems.cbegin(), problems.cend(), [](const auto& p) {
        return p.kind != HealthProblem::Kind::ImageMissing;
    });
    if (m_health.isChecking())
        m_problems->setText(tr("Checking the engine and the images…"));
    else if (problems.isEmpty())
        m_problems->setText(tr("<b>All set:</b> the engine answers and every language has its "
                               "image."));
    else
        m_problems->setText(tr("<b>To do:</b><br>") + lines.join(QStringLiteral("<br>")));
    m_build->setVisible(anyDefaultMissing);
    m_build->setEnabled(engineWorks && !isBuilding() && !m_images.isBusy());
    m_useDefaults->setVisible(anyChosenMissing);
    m_useDefaults->setEnabled(!isBuilding());
    m_finish->setEnabled(problems.isEmpty() && !m_health.isChecking());
    m_finish->setDefault(m_finish->isEnabled());
}

void SetupDialog::buildMissingImages()
{
    if (isBuilding())
        return;
    for (const HealthProblem& problem : m_health.problems()) {
        if (isMissingDefaultImage(problem) && !m_toBuild.contains(*problem.language))
            m_toBuild << *problem.language;
    }
    if (m_toBuild.isEmpty())
        return;
    m_built = 0;
    m_progress->setRange(0, static_cast<int>(m_toBuild.size()));
    m_progress->setValue(0);
    m_progress->setVisible(true);
    m_buildFailed = false;
    showLog();
    m_log->clear();
    buildNext();
}

void SetupDialog::buildNext()
{
    const Language language = m_toBuild.constFirst();
    m_progress->setFormat(tr("Building the %1 image (%2 of %3)…")
                              .arg(LanguageTraits::displayName(language))
                              .arg(m_built + 1)
                              .arg(m_progress->maximum()));
    showProblems();
    m_images.buildDefaultImage(language);
}

void SetupDialog::onBuildFinished(bool ok)
{
    if (!isBuilding())
        return;
    if (!ok) {
        m_toBuild.clear();
        m_buildFailed = true;
        m_progress->setFormat(tr("The build failed: its log says why, and the list above how to "
                                 "build the image in a terminal."));
        m_health.recheck();
        showProblems();
        return;
    }
    m_toBuild.removeFirst();
    m_progress->setValue(++m_built);
    if (!m_toBuild.isEmpty()) {
        buildNext();
        return;
    }
    m_progress->setFormat(tr("Images built."));
    m_health.recheck();
}

void SetupDialog::showLog()
{
    if (!m_log->isHidden())
        return;
    m_log->setVisible(true);
    m_layout->setStretch(m_layout->indexOf(m_log) + 1, 0); // the log takes the room now
    if (height() < kHeightWithLog)
        resize(width(), kHeightWithLog);
}

void SetupDialog::useDefaultImages()
{
    ServerSettings settings = ServerSettings::load(m_dataDir);
    for (const HealthProblem& problem : m_health.problems()) {
        if (isMissingChosenImage(problem))
            settings.setImage(*problem.language, {});
    }
    if (const Expected<void> saved = settings.save(m_dataDir); !saved) {
        m_problems->setText(
            tr("The settings cannot be saved: %1").arg(saved.error().toHtmlEscaped()));
        return;
    }
    m_health.recheck();
}

void SetupDialog::finish(bool setupDone)
{
    if (isBuilding())
        m_images.cancel();
    if (setupDone) {
        DesktopSettings settings = DesktopSettings::load(m_dataDir);
        settings.setupDone = true;
        // At worst the setup is offered once more at the next start.
        static_cast<void>(settings.save(m_dataDir));
    }
    accept();
}

} // namespace csm
