#include "server/ServerSettings.h"

#include "core/ByteSize.h"
#include "core/SettingsFile.h"
#include "server/ServerOptionsParser.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>

namespace csm {

QString ServerSettings::filePath(const QString& dataDir)
{
    return SettingsFile::path(dataDir);
}

ServerSettings ServerSettings::load(const QString& dataDir, QStringList* problems)
{
    // The server's own parser reads the file, with no flag and no environment to override it:
    // what the app shows is what a server started now would use.
    const auto parsed = ServerOptionsParser::parse(
        {QStringLiteral("code-sandbox-mcp"), QStringLiteral("--data-dir"), dataDir},
        QProcessEnvironment());
    ServerSettings settings;
    const auto* options = std::get_if<ServerOptions>(&parsed);
    if (!options) {
        if (problems)
            *problems << std::get<QString>(parsed);
        return settings;
    }
    if (problems)
        *problems << options->warnings;
    settings.engine = options->engine;
    settings.pythonImage = options->pythonImage;
    settings.jsImage = options->jsImage;
    settings.policy = options->policy;
    settings.defaultTimeoutSeconds = options->defaultTimeoutSeconds;
    settings.maxTimeoutSeconds = options->maxTimeoutSeconds;
    settings.poolSize = options->poolSize;
    settings.poolIdleSeconds = options->poolIdleSeconds;
    settings.maxRunning = options->maxRunning;
    settings.redactOutput = options->redactOutput;
    settings.retention = options->historyRetention;
    settings.historyMaxFieldBytes = options->historyMaxFieldBytes;
    return settings;
}

bool ServerSettings::save(const QString& dataDir, QString* error) const
{
    SettingsFile file(dataDir);
    file.setValue(QStringLiteral("engine"), engine.isEmpty() ? QStringLiteral("auto") : engine);
    file.setValue(QStringLiteral("python-image"), pythonImage);
    file.setValue(QStringLiteral("js-image"), jsImage);
    file.setValue(QStringLiteral("timeout"), QString::number(defaultTimeoutSeconds));
    file.setValue(QStringLiteral("max-timeout"), QString::number(maxTimeoutSeconds));
    file.setValue(QStringLiteral("memory"), ByteSize::format(policy.memoryBytes));
    file.setValue(QStringLiteral("cpus"), QString::number(policy.cpus));
    file.setValue(QStringLiteral("pids-limit"), QString::number(policy.pidsLimit));
    file.setValue(QStringLiteral("tmpfs-size"), ByteSize::format(policy.tmpfsBytes));
    file.setValue(QStringLiteral("network"), policy.network);
    file.setValue(QStringLiteral("output-cap"), ByteSize::format(policy.outputCapBytes));
    file.setValue(QStringLiteral("pool"), QString::number(poolSize));
    file.setValue(QStringLiteral("pool-idle"), QString::number(poolIdleSeconds));
    file.setValue(QStringLiteral("max-running"), QString::number(maxRunning));
    file.setValue(QStringLiteral("allow-unlimited"),
                  policy.allowUnenforcedLimits ? QStringLiteral("true") : QStringLiteral("false"));
    file.setValue(QStringLiteral("redact"),
                  redactOutput ? QStringLiteral("true") : QStringLiteral("false"));
    file.setValue(QStringLiteral("history-max-runs"), QString::number(retention.maxRuns));
    file.setValue(QStringLiteral("history-max-days"), QString::number(retention.maxAgeDays));
    // Whole MiB, as the flag takes it (the form shows no finer unit).
    file.setValue(QStringLiteral("history-max-mb"),
                  QString::number(retention.maxTotalBytes / RetentionPolicy::kMiB));
    file.setValue(QStringLiteral("history-max-field-size"), ByteSize::format(historyMaxFieldBytes));
    return file.save(error);
}

void ServerSettings::setImage(Language language, const QString& image)
{
    (language == Language::Python ? pythonImage : jsImage) = image.trimmed();
}

} // namespace csm
