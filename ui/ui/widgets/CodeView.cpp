#include "ui/widgets/CodeView.h"

#include "ui/PaletteTone.h"
#include "ui/widgets/CodeHighlighter.h"

#include <QEvent>
#include <QFontDatabase>
#include <QPainter>
#include <QTextBlock>

namespace csm {

// The line-number column; CodeView paints it.
class CodeView::Gutter final : public QWidget
{
public:
    explicit Gutter(CodeView* view)
        : QWidget(view)
        , m_view(view)
    {}

    QSize sizeHint() const override { return {m_view->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_view->paintGutter(event); }

private:
    CodeView* m_view;
};

CodeView::CodeView(QWidget* parent)
    : QPlainTextEdit(parent)
    , m_gutter(new Gutter(this))
    , m_highlighter(new CodeHighlighter(document()))
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    const auto fitGutter = [this] {
        setViewportMargins(gutterWidth(), 0, 0, 0);
    };
    connect(this, &QPlainTextEdit::blockCountChanged, this, fitGutter);
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy != 0)
            m_gutter->scroll(0, dy);
        else
            m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    });
    fitGutter();
    m_highlighter->setDark(PaletteTone::isDark(palette()));
}

void CodeView::changeEvent(QEvent* event)
{
    QPlainTextEdit::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        m_highlighter->setDark(PaletteTone::isDark(palette()));
}

void CodeView::showCode(const QString& code, const QString& languageId)
{
    // The language first, so that the text is highlighted once.
    m_highlighter->setLanguage(languageId);
    setPlainText(code);
}

int CodeView::gutterWidth() const
{
    const int digits = int(QString::number(std::max(1, blockCount())).size());
    return 8 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(2, digits);
}

void CodeView::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    const QRect area = contentsRect();
    m_gutter->setGeometry(QRect(area.left(), area.top(), gutterWidth(), area.height()));
}

void CodeView::paintGutter(QPaintEvent* event)
{
    QPainter painter(m_gutter);
    painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    painter.setPen(palette().color(QPalette::PlaceholderText));
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    while (block.isValid() && top <= event->rect().bottom()) {
        const int height = qRound(blockBoundingRect(block).height());
        if (block.isVisible() && top + height >= event->rect().top()) {
            painter.drawText(0, top, m_gutter->width() - 4, fontMetrics().height(), Qt::AlignRight,
                             QString::number(block.blockNumber() + 1));
        }
        block = block.next();
        top += height;
    }
}

} // namespace csm
