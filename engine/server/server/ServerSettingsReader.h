#pragma once

#include "core/SettingsFile.h"
#include "server/ServerSetting.h"

#include <QProcessEnvironment>
#include <QStringList>

#include <optional>

class QCommandLineParser;

namespace csm {

struct ServerSettings;

// Reads the settings of ServerSettingsSchema from their three places, each winning over the
// next: the flags, the CODE_SANDBOX_* variables, and settings.ini in the data folder (which the
// desktop app writes).
class ServerSettingsReader final
{
public:
    // `flags`: a parser that has read the command line, with the schema's flags; null for none.
    ServerSettingsReader(const QCommandLineParser* flags, const QProcessEnvironment& environment,
                         const QString& dataDir);

    // Fills `settings`; or, for a bad flag or variable, says what is wrong for the user. A bad
    // stored value is skipped with a line in `warnings`: the file is not this command line's
    // fault, and alone it cannot stop a server.
    std::optional<QString> read(ServerSettings& settings, QStringList& warnings) const;

    // Puts the value of `key`'s variable, if set, into `settings`; or says what is wrong with it.
    static std::optional<QString> readVariable(const QString& key,
                                               const QProcessEnvironment& environment,
                                               ServerSettings& settings);

private:
    enum class Source
    {
        None, // the default
        CommandLine,
        File,
    };

    std::optional<QString> readOne(const ServerSetting& setting, ServerSettings& settings,
                                   QStringList& warnings, Source& source) const;
    // The default timeout follows a lower maximum down; a conflict between them is the user's to
    // fix when both come from the command line, else the file's value gives way.
    std::optional<QString> reconcileTimeouts(ServerSettings& settings, Source timeoutSource,
                                             QStringList& warnings) const;
    bool givenHere(const QString& key) const;
    QString storedProblem(const QString& key, const QString& text, const QString& problem) const;

    const QCommandLineParser* m_flags;
    QProcessEnvironment m_environment;
    QString m_dataDir;
    SettingsFile m_file;
};

} // namespace csm
