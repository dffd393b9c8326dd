#include "ui/dialogs/ApprovalDialog.h"

#include "core/VisibleText.h"
#include "ui/Plural.h"
#include "ui/widgets/CodeView.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QTextCursor>
#include <QVBoxLayout>

namespace csm {

namespace {
QString languageOfTool(const QString& tool)
{
    return tool == QLatin1String("run_js_code") ? QStringLiteral("javascript")
                                                : QStringLiteral("python");
}
} // namespace

ApprovalDialog::ApprovalDialog(const ApprovalRequest& request, QWidget* parent)
    : QDialog(parent)
    , m_request(request)
    , m_code(new CodeView(this))
    , m_who(new QLabel(this))
    , m_hiddenWarning(new QLabel(this))
    , m_files(new QLabel(this))
    , m_countdown(new QLabel(this))
{
    setWindowTitle(tr("Approve a call? — Code Sandbox"));
    setAttribute(Qt::WA_DeleteOnClose);
    // The client names itself, and the code is anyone's: characters that show nothing or turn
    // the text around are shown as markers, so that what the person reads is what would run.
    const VisibleText client(request.clientName);
    const VisibleText code(request.code);
    m_who->setTextFormat(Qt::RichText);
    m_who->setText(tr("<b>%1</b> asks to run this code with <b>%2</b> (over %3):")
                       .arg(request.clientName.isEmpty() ? tr("An MCP client") : client.toHtml(),
                            request.tool.toHtmlEscaped(), request.transport.toHtmlEscaped()));
    m_who->setWordWrap(true);
    qsizetype hidden = client.markers().size() + code.markers().size();
    // The files it sends go into the sandbox too: named, with their sizes.
    QStringList files;
    for (const ReviewedFile& file : request.files) {
        const VisibleText path(file.path);
        hidden += path.markers().size();
        files << tr("%1 (%2)").arg(path.text(), locale().formattedDataSize(file.sizeBytes));
    }
    m_files->setTextFormat(Qt::PlainText);
    m_files->setWordWrap(true);
    m_files->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_files->setText(
        tr("With %1, placed beside it before it runs: %2")
            .arg(Plural::of(files.size(), "file", "files"), files.join(QStringLiteral(", "))));
    m_files->setVisible(!files.isEmpty());
    m_hiddenWarning->setTextFormat(Qt::PlainText);
    m_hiddenWarning->setWordWrap(true);
    m_hiddenWarning->setStyleSheet(QStringLiteral("color: #b3261e;"));
    m_hiddenWarning->setText(
        tr("This call contains %1, shown highlighted as ⟦U+…⟧. Such characters can make code "
           "look different from what it does.")
            .arg(Plural::of(hidden, "invisible or text-direction character",
                            "invisible or text-direction characters")));
    m_hiddenWarning->setVisible(hidden > 0);
    m_code->showCode(code.text(), languageOfTool(request.tool));
    // No horizontal scrolling: the end of a long line cannot hide beyond the right edge.
    m_code->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_code->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_code->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    highlightMarkers(code);

    auto* buttons = new QDialogButtonBox(this);
    m_approve = buttons->addButton(tr("&Run it"), QDialogButtonBox::AcceptRole);
    m_deny = buttons->addButton(tr("&Deny"), QDialogButtonBox::RejectRole);
    // Enter must not approve code the user may not have read.
    m_deny->setDefault(true);
    m_deny->setFocus();
    connect(m_approve, &QPushButton::clicked, this, [this] { answer(true); });
    connect(m_deny, &QPushButton::clicked, this, [this] { answer(false); });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_who);
    layout->addWidget(m_hiddenWarning);
    layout->addWidget(m_code, 1);
    layout->addWidget(m_files);
    layout->addWidget(m_countdown);
    layout->addWidget(buttons);
    resize(720, 480);

    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, &ApprovalDialog::updateCountdown);
    m_tick.start();
    updateCountdown();
    // Closing the window (Esc, the title bar) is a denial, said once.
    connect(this, &QDialog::rejected, this, [this] { answer(false); });
    // Stable names: tests find the widgets by them (findChild).
    m_approve->setObjectName(QStringLiteral("approveButton"));
    m_deny->setObjectName(QStringLiteral("denyButton"));
    m_code->setObjectName(QStringLiteral("codeView"));
    m_who->setObjectName(QStringLiteral("requesterLabel"));
    m_hiddenWarning->setObjectName(QStringLiteral("hiddenCharactersWarning"));
    m_files->setObjectName(QStringLiteral("filesLabel"));
}

void ApprovalDialog::highlightMarkers(const VisibleText& code)
{
    QTextCharFormat marked;
    marked.setBackground(QColor(0xff, 0xd5, 0x4f));
    marked.setForeground(Qt::black);
    QList<QTextEdit::ExtraSelection> selections;
    selections.reserve(code.markers().size());
    for (const VisibleText::Marker& marker : code.markers()) {
        QTextCursor cursor(m_code->document());
        cursor.setPosition(static_cast<int>(marker.position));
        cursor.setPosition(static_cast<int>(marker.position + marker.length),
                           QTextCursor::KeepAnchor);
        selections.append({cursor, marked});
    }
    m_code->setExtraSelections(selections);
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
