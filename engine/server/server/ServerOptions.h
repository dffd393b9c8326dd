#pragma once

#include "server/ServerSettings.h"
#include "transport/http/HttpServerConfig.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace csm {

// The headless server's configuration, from its command line and environment: its settings
// (which settings.ini may also hold) and what only a command line says.
struct ServerOptions : ServerSettings
{
    enum class Action
    {
        Serve,
        ShowHelp,
        ShowVersion,
    };

    enum class Transport
    {
        Stdio,
        Http,
    };

    Action action = Action::Serve;
    QString helpText;
    Transport transport = Transport::Stdio;
    http::HttpServerConfig http; // used with Transport::Http

    // Variables of the server's own environment passed into every sandbox (by name).
    QStringList passThroughEnvironment;
    // The run history: every call recorded in <dataDir>/history.sqlite, shared with other
    // Code Sandbox processes. historyPath is resolved from --data-dir / CODE_SANDBOX_DATA_DIR.
    bool historyEnabled = true;
    QString dataDir;
    QString historyPath;
    // Secret values in a private file in dataDir instead of the keychain (--secrets-file).
    bool secretsFile = false;
    bool verbose = false;
    // What these options were read from, so that they can be read again when the user's
    // settings file changes (flags and variables keep winning over it).
    QStringList arguments;
    QProcessEnvironment environment;
    // Problems that do not stop the server (e.g. a pass-through variable that is not set).
    QStringList warnings;
};

} // namespace csm
