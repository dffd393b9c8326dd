#pragma once

#include <QString>

namespace csm {

// A count with its noun in the right number: "1 call", "3 calls". The app loads no translation,
// and without one tr()'s %n plurals read "3 call(s)".
class Plural final
{
public:
    static QString of(qint64 count, const char* one, const char* many);
};

} // namespace csm
