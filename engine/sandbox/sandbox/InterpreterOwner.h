#pragma once

#include <QString>

namespace csm {

// Whose interpreter sessions: one client of the server. Sessions are found by their owner's key
// and their name, so that two clients' same name is two sessions.
struct InterpreterOwner
{
    // Tells the clients apart (the tools layer makes it of the call's transport and MCP
    // session).
    QString key;
    // For lists of every client's sessions.
    QString transport;
    QString clientName; // as the client said in initialize
};

} // namespace csm
