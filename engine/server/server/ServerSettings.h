#pragma once

#include "core/Expected.h"
#include "egress/EgressSettings.h"
#include "history/HistoryFieldCap.h"
#include "history/RetentionPolicy.h"
#include "runtime/EngineChoice.h"
#include "runtime/EngineLocationChoice.h"
#include "runtime/Language.h"
#include "runtime/SandboxPolicy.h"

#include <QString>
#include <QStringList>

namespace csm {

// The server's settings: what settings.ini may hold, and what a server reads from its flags and
// environment variables over it (ServerOptions adds the rest of its command line). The [server]
// group of settings.ini in the data folder is shared by the desktop app (which edits it) and
// every server process of the user (which reads it at start and again whenever the file
// changes). Values are stored as the flags are written ("512m", "bridge"), and
// ServerSettingsSchema names each one once: its key, flag, variable, check and default.
struct ServerSettings
{
    QString engine; // "podman", "docker"; empty: auto-detect
    // Where that engine is (EngineAddress: a URL, or a context or connection name); empty: where
    // its CLI goes by default (DOCKER_HOST, CONTAINER_HOST, its configuration).
    QString engineHost;
    // Whether its containers see this machine's files: auto asks the engine (EngineLocationFinder).
    EngineLocationChoice engineLocation = EngineLocationChoice::Auto;
    QString pythonImage; // empty: the locally built default
    QString jsImage;
    SandboxPolicy policy;
    // How sandboxes reach the network; policy.network follows its mode (setEgressMode).
    EgressSettings egress;
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
    // Persistent sessions: ended after this long without a cell; at most this many live in all
    // (0: no sessions) and per client.
    int interpreterIdleSeconds = 900;
    int maxInterpreters = 16;
    int maxClientInterpreters = 4;
    // Secret values in returned output become [secret:NAME] (--no-redact turns it off).
    bool redactOutput = true;
    RetentionPolicy historyRetention; // applied at start, after each run and on a timer
    // Most bytes kept in the history of each of a run's code, stdout and stderr.
    qint64 historyMaxFieldBytes = HistoryFieldCap::kDefaultMaxBytes;

    // <dataDir>/settings.ini
    static QString filePath(const QString& dataDir);
    // The settings stored in `dataDir`, with the defaults for what is missing. A stored value
    // that is not valid is ignored; `problems` gets one line for each.
    static ServerSettings load(const QString& dataDir, QStringList* problems = nullptr);
    // Stores every value that the app offers (creating the folder and file as needed); fails
    // when the file cannot be written.
    Expected<void> save(const QString& dataDir) const;

    // The engine and images, as the runtime layer reads them.
    EngineChoice engineChoice() const { return {engine, engineHost, pythonImage, jsImage}; }
    QString image(Language language) const { return engineChoice().image(language); }
    void setImage(Language language, const QString& image);
    void setEgressMode(EgressMode mode)
    {
        egress.mode = mode;
        policy.network = egress.engineNetwork();
    }

    friend bool operator==(const ServerSettings&, const ServerSettings&) = default;
};

} // namespace csm
