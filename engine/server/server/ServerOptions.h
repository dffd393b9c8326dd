#pragma once

#include "history/HistoryFieldCap.h"
#include "history/RetentionPolicy.h"
#include "runtime/SandboxPolicy.h"
#include "transport/http/HttpServerConfig.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace csm {

// The headless server's configuration, from its command line and environment.
struct ServerOptions
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

    QString engine;      // "podman", "docker" or empty for auto-detection
    QString pythonImage; // empty: the locally built default
    QString jsImage;
    // Variables of the server's own environment passed into every sandbox (by name).
    QStringList passThroughEnvironment;
    SandboxPolicy policy;
    double defaultTimeoutSeconds = 30;
    double maxTimeoutSeconds = 600;
    // Containers kept started ahead of calls, per image; 0 disables the warm pool.
    int poolSize = 2;
    // A pool unused this long is emptied (and refilled at its next call).
    int poolIdleSeconds = 600;
    // Sandboxes running programs at once (0: sized from the machine, RunQueue::
    // defaultMaxRunning), and calls that may wait for one beyond them.
    int maxRunning = 0;
    int maxQueued = 128;
    // The run history: every call recorded in <dataDir>/history.sqlite, shared with other
    // Code Sandbox processes. historyPath is resolved from --data-dir / CODE_SANDBOX_DATA_DIR.
    bool historyEnabled = true;
    QString dataDir;
    QString historyPath;
    RetentionPolicy historyRetention; // applied at start, after each run and on a timer
    // Most bytes kept in the history of each of a run's code, stdout and stderr.
    qint64 historyMaxFieldBytes = HistoryFieldCap::kDefaultMaxBytes;
    // Secret values in a private file in dataDir instead of the keychain (--secrets-file).
    bool secretsFile = false;
    // Secret values in returned output become [secret:NAME] (--no-redact turns it off).
    bool redactOutput = true;
    bool verbose = false;
    // What these options were read from, so that they can be read again when the user's
    // settings file changes (flags and variables keep winning over it).
    QStringList arguments;
    QProcessEnvironment environment;
    // Problems that do not stop the server (e.g. a pass-through variable that is not set).
    QStringList warnings;
};

} // namespace csm
