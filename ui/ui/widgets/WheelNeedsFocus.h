#pragma once

#include <QObject>

class QWidget;

namespace csm {

// Keeps the mouse wheel from changing a value by accident: a spin box or list it is applied to
// takes the wheel only once it has the focus (clicked or tabbed into). Over one without focus,
// the wheel scrolls the page around it instead, as a person scrolling down a form expects.
class WheelNeedsFocus final : public QObject
{
    Q_OBJECT

public:
    // Applies it to `field` (its focus comes from a click or Tab, never from the wheel).
    static void applyTo(QWidget* field);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelNeedsFocus(QObject* parent);
};

} // namespace csm
