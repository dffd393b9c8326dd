#include "ui/widgets/WheelNeedsFocus.h"

#include <QEvent>
#include <QWidget>

namespace csm {

WheelNeedsFocus::WheelNeedsFocus(QObject* parent)
    : QObject(parent)
{}

void WheelNeedsFocus::applyTo(QWidget* field)
{
    field->setFocusPolicy(Qt::StrongFocus);
    field->installEventFilter(new WheelNeedsFocus(field));
}

bool WheelNeedsFocus::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() != QEvent::Wheel)
        return false;
    const auto* field = qobject_cast<QWidget*>(watched);
    if (!field || field->hasFocus())
        return false;
    // Not taken here, and not accepted: Qt hands the wheel on to the parents (the page's
    // scroll area).
    event->ignore();
    return true;
}

} // namespace csm
