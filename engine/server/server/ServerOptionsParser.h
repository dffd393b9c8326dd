#pragma once

#include "server/ServerOptions.h"

#include <QProcessEnvironment>
#include <QStringList>

#include <variant>

namespace csm {

// Reads ServerOptions from argv and the environment; flags win over environment variables.
class ServerOptionsParser final
{
public:
    // Either the options, or an error message for the user.
    static std::variant<ServerOptions, QString> parse(const QStringList& arguments,
                                                      const QProcessEnvironment& environment);
};

} // namespace csm
