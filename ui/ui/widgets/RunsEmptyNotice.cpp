#include "ui/widgets/RunsEmptyNotice.h"

#include <QFontDatabase>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace csm {

QString RunsEmptyNotice::installCommand()
{
    return QStringLiteral("code-sandbox-mcp install-client claude-code");
}

RunsEmptyNotice::RunsEmptyNotice(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_steps(new QLabel(this))
    , m_command(new QLabel(installCommand(), this))
    , m_connect(new QPushButton(tr("Connect an assistant…"), this))
{
    QFont title = m_title->font();
    title.setPointSizeF(title.pointSizeF() * 1.25);
    title.setBold(true);
    m_title->setFont(title);
    m_title->setAlignment(Qt::AlignCenter);
    m_title->setTextFormat(Qt::PlainText);
    m_steps->setText(
        tr("Runs show here as soon as an assistant calls Code Sandbox. Connect one with a "
           "command (\"install-client --list\" shows the clients it knows):"));
    m_steps->setWordWrap(true);
    m_steps->setAlignment(Qt::AlignCenter);
    m_steps->setTextFormat(Qt::PlainText);
    m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_command->setTextFormat(Qt::PlainText);
    m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_command->setAlignment(Qt::AlignCenter);
    m_connect->setToolTip(tr("Every client's configuration, ready to paste or to add to its file"));
    connect(m_connect, &QPushButton::clicked, this, &RunsEmptyNotice::connectAssistantRequested);

    auto* layout = new QVBoxLayout(this);
    layout->addStretch(1);
    layout->addWidget(m_title);
    layout->addWidget(m_steps);
    layout->addWidget(m_command);
    layout->addWidget(m_connect, 0, Qt::AlignHCenter);
    layout->addStretch(2);
    showReason(Reason::NoRuns);
    // Stable names: tests find the widgets by them (findChild).
    m_title->setObjectName(QStringLiteral("emptyTitle"));
    m_steps->setObjectName(QStringLiteral("emptySteps"));
    m_command->setObjectName(QStringLiteral("emptyCommand"));
    m_connect->setObjectName(QStringLiteral("connectAssistantButton"));
}

void RunsEmptyNotice::showReason(Reason reason)
{
    m_reason = reason;
    const bool noRuns = reason == Reason::NoRuns;
    m_title->setText(noRuns ? tr("No runs yet") : tr("No runs match the filter"));
    m_steps->setVisible(noRuns);
    m_command->setVisible(noRuns);
    m_connect->setVisible(noRuns);
}

} // namespace csm
