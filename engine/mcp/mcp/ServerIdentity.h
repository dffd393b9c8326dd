#pragma once

#include <QString>

namespace csm {

// What a server says of itself in its initialize result.
struct ServerIdentity
{
    QString name;
    QString title;
    QString version;
    QString instructions;
};

} // namespace csm
