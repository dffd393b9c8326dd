#include "ui/PaletteTone.h"

#include <QPalette>

namespace csm {

bool PaletteTone::isDark(const QPalette& palette)
{
    return palette.color(QPalette::Base).lightness() < 128;
}

} // namespace csm
