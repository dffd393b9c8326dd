#pragma once

#include <QPlainTextEdit>

namespace csm {

class CodeHighlighter;

// A read-only, monospace program listing with line numbers in a gutter and syntax colours.
class CodeView final : public QPlainTextEdit
{
    Q_OBJECT

public:
    explicit CodeView(QWidget* parent = nullptr);

    // `languageId`: "python", "javascript", or anything else for no colours.
    void showCode(const QString& code, const QString& languageId);
    int gutterWidth() const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    // The code's colours follow the palette: light or dark.
    void changeEvent(QEvent* event) override;

private:
    class Gutter;
    void paintGutter(QPaintEvent* event);

    Gutter* m_gutter = nullptr;
    CodeHighlighter* m_highlighter = nullptr;
};

} // namespace csm
