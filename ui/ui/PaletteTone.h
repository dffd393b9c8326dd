#pragma once

class QPalette;

namespace csm {

// Whether a palette is a dark one (light text on a dark base): the colours the app draws
// itself (status dots, code, charts) have a version for each.
class PaletteTone final
{
public:
    static bool isDark(const QPalette& palette);
};

} // namespace csm
