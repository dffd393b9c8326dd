#pragma once

#include <QColor>
#include <QList>
#include <QListWidget>
#include <QString>

namespace csm {

// A chart's legend that lists every entry, wrapped over as many lines as the width needs and
// scrolling past kMaxLines: Qt Charts' own legend cuts entries once they do not fit on one
// line, and the Activity page's clients are as many as the assistants a person uses.
class ChartLegend final : public QListWidget
{
    Q_OBJECT

public:
    static constexpr int kMaxLines = 3;

    struct Entry
    {
        QString name;
        QColor colour;
    };

    explicit ChartLegend(QWidget* parent = nullptr);

    void showEntries(const QList<Entry>& entries);
    QStringList names() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    int lineHeight() const;
    // As high as the lines the entries take at this width, up to kMaxLines.
    void fitHeight();
};

} // namespace csm
