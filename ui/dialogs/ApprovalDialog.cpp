#include "dialogs/ApprovalDialog.h"

#include "widgets/CodeView.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace csm {

namespace {
QString languageOf(const QString& tool)
{
    return tool == QLatin1String("run_js_code") ? QStringLiteral("javascript")
                                                : QStringLiteral("python");
}
} // namespace

ApprovalDialog::ApprovalDialog(const ApprovalRequest& request, QWidget* parent)
    : QDialog(parent)
    , m_request(request)
    , m_code(new CodeView(this))
    , m_countdown(new QLabel(this))
{
    setWindowTitle(tr("Approve a call? — Code Sandbox"));
    setAttribute(Qt::WA_DeleteOnClose);
    const QString client = request.clientName.isEmpty() ? tr("An MCP client") : request.clientName;
    auto* who = new QLabel(tr("<b>%1</b> asks to run this code with <b>%2</b> (over %3):")
                               .arg(client.toHtmlEscaped(), request.tool.toHtmlEscaped(),
                                    request.transport.toHtmlEscaped()),
                           this);
    who->setWordWrap(true);
    m_code->showCode(request.code, languageOf(request.tool));

    auto* buttons = new QDialogButtonBox(this);
    m_approve = buttons->addButton(tr("&Run it"), QDialogButtonBox::AcceptRole);
    m_deny = buttons->addButton(tr("&Deny"), QDialogButtonBox::RejectRole);
    // Enter must not approve code the user may not have read.
    m_deny->setDefault(true);
    m_deny->setFocus();
    connect(m_approve, &QPushButton::clicked, this, [this] { answer(true); });
    connect(m_deny, &QPushButton::clicked, this, [this] { answer(false); });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(who);
    layout->addWidget(m_code, 1);
    layout->addWidget(m_countdown);
    layout->addWidget(buttons);
    resize(720, 480);

    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &ApprovalDialog::updateCountdown);
    m_tick.start();
    updateCountdown();
    // Closing the window (Esc, the title bar) is a denial, said once.
    connect(this, &QDialog::rejected, this, [this] { answer(false); });
}

void ApprovalDialog::updateCountdown()
{
    const qint64 left =
        QDateTime::currentDateTimeUtc().msecsTo(m_request.askedAt.addMSecs(m_request.timeoutMs));
    m_countdown->setText(tr("Denied automatically in %1 s if you do not answer.")
                             .arg(std::max<qint64>(0, (left + 999) / 1000)));
}

void ApprovalDialog::dismiss()
{
    m_answered = true;
    m_tick.stop();
    close();
}

void ApprovalDialog::answer(bool approved)
{
    if (m_answered)
        return;
    m_answered = true;
    m_tick.stop();
    Q_EMIT decided(m_request.id, approved);
    close();
}

} // namespace csm
