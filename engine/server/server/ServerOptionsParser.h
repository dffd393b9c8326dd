#pragma once

#include "core/Expected.h"
#include "server/ServerOptions.h"

#include <QProcessEnvironment>
#include <QStringList>

namespace csm {

// Reads ServerOptions from argv and the environment; flags win over environment variables.
class ServerOptionsParser final
{
public:
    // The options, or an error message for the user.
    static Expected<ServerOptions> parse(const QStringList& arguments,
                                         const QProcessEnvironment& environment);
};

} // namespace csm
