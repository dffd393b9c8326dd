#pragma once

#include "history/HistoryFieldCap.h"
#include "history/RetentionPolicy.h"
#include "runtime/EngineChoice.h"
#include "runtime/Language.h"
#include "runtime/SandboxPolicy.h"

#include <QString>
#include <QStringList>

namespace csm {

// The user's server settings, shared by the desktop app (which edits them) and every server
// process of the user (which reads them at start and again whenever the file changes): the
// [server] group of settings.ini in the data folder. A server's flags and environment variables
// win over the file. Values are stored as the flags are written ("512m", "bridge"), so the same
// parser checks a flag, a variable and a stored value alike.
struct ServerSettings
{
    QString engine;      // "podman", "docker"; empty: auto-detect
    QString pythonImage; // empty: the locally built default
    QString jsImage;
    SandboxPolicy policy;
    double defaultTimeoutSeconds = 30;
    double maxTimeoutSeconds = 600;
    int poolSize = 2;
    int poolIdleSeconds = 600;
    int maxRunning = 0; // sandboxes at once; 0: sized from the machine
    bool redactOutput = true;
    RetentionPolicy retention;
    qint64 historyMaxFieldBytes = HistoryFieldCap::kDefaultMaxBytes;

    // <dataDir>/settings.ini
    static QString filePath(const QString& dataDir);
    // The settings stored in `dataDir`, with the defaults for what is missing. A stored value
    // that is not valid is ignored; `problems` gets one line for each.
    static ServerSettings load(const QString& dataDir, QStringList* problems = nullptr);
    // Stores every value (creating the folder and file as needed); false with `error` set when
    // the file cannot be written.
    bool save(const QString& dataDir, QString* error = nullptr) const;

    // The engine and images, as the runtime layer reads them.
    EngineChoice engineChoice() const { return {engine, pythonImage, jsImage}; }
    QString image(Language language) const { return engineChoice().image(language); }
    void setImage(Language language, const QString& image);

    friend bool operator==(const ServerSettings&, const ServerSettings&) = default;
};

} // namespace csm
