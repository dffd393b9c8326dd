#pragma once

#include "core/SettingsFile.h"
#include "server/ServerSettings.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

// Settings for the tests of ServerSettings and its schema.
namespace ServerSettingsSamples {

// Every value that the app saves, each different from its default.
inline csm::ServerSettings changed()
{
    csm::ServerSettings settings;
    settings.engine = QStringLiteral("docker");
    settings.engineHost = QStringLiteral("ssh://me@build.example");
    settings.pythonImage = QStringLiteral("localhost/my-python:3");
    settings.jsImage = QStringLiteral("my-node:20");
    settings.policy.memoryBytes = 256LL << 20;
    settings.policy.cpus = 0.5;
    settings.policy.pidsLimit = 64;
    settings.policy.tmpfsBytes = 8LL << 20;
    // Bridge: the one mode whose engine network (the older --network) differs from the default.
    settings.setEgressMode(csm::EgressMode::Bridge);
    settings.egress.allowedHosts = {*csm::HostPattern::parse(QStringLiteral("api.github.com:443")),
                                    *csm::HostPattern::parse(QStringLiteral("*.pypi.org"))};
    settings.egress.alwaysAllowed = {*csm::HostPattern::parse(QStringLiteral("example.org:443"))};
    settings.policy.outputCapBytes = 64LL << 10;
    settings.policy.allowUnenforcedLimits = true;
    // A folder that exists wherever the tests run, as the server resolves it, and that does not
    // hold the data folder (a temporary one): a writable share may not.
    settings.policy.sharedFolders = {
        {QFileInfo(QCoreApplication::applicationDirPath()).canonicalFilePath(),
         QStringLiteral("scratch"), true}};
    settings.defaultTimeoutSeconds = 12.5;
    settings.maxTimeoutSeconds = 120;
    settings.poolSize = 0;
    settings.poolIdleSeconds = 60;
    settings.interpreterIdleSeconds = 300;
    settings.maxInterpreters = 6;
    settings.maxClientInterpreters = 2;
    settings.maxRunning = 3;
    settings.redactOutput = false;
    settings.historyRetention.maxRuns = 500;
    settings.historyRetention.maxAgeDays = 0;
    settings.historyRetention.maxTotalBytes = 100LL << 20;
    settings.historyRetention.maxFilesBytes = 300LL << 20;
    settings.historyMaxFieldBytes = 32LL << 10;
    return settings;
}

// Writes one value of the [server] group of `dataDir`'s settings.ini, as a person might.
inline void writeServerValue(const QString& dataDir, const QString& key, const QString& value)
{
    QSettings file(csm::SettingsFile::path(dataDir), QSettings::IniFormat);
    file.setValue(QStringLiteral("server/") + key, value);
}

} // namespace ServerSettingsSamples
