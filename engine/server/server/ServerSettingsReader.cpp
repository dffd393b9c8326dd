#include "server/ServerSettingsReader.h"

#include "server/ServerSettings.h"
#include "server/ServerSettingsSchema.h"

#include <QCommandLineParser>
#include <QDir>

namespace csm {

namespace {
// A switch's variable says whether the switch is on: "1" or "true" (any case), else "0",
// "false" or nothing. Gives the text the switch stands for, or its opposite.
std::optional<QString> switchVariableText(const ServerSetting& setting, const QString& word)
{
    const bool on = setting.switchText == QLatin1String("true");
    if (word == QLatin1String("1") || word == QLatin1String("true"))
        return setting.switchText;
    if (word == QLatin1String("0") || word == QLatin1String("false") || word.isEmpty())
        return on ? QStringLiteral("false") : QStringLiteral("true");
    return std::nullopt;
}

bool isSet(const ServerSetting& setting, const QProcessEnvironment& environment)
{
    return !setting.variable.isEmpty() && environment.contains(setting.variable);
}

// The text of a value as a setting reads it: a switch's word is trimmed and in lower case.
QString normalized(const ServerSetting& setting, const QString& text)
{
    return setting.isSwitch() ? text.trimmed().toLower() : text;
}

// `where` (a flag or variable) "text": problem; for several values, one a line (a repeated
// --share), the problem names the one that is wrong.
QString commandLineProblem(const QString& where, const QString& text, const QString& problem)
{
    if (text.contains(u'\n'))
        return QStringLiteral("%1: %2").arg(where, problem);
    return QStringLiteral("%1 \"%2\": %3").arg(where, text, problem);
}

// Reads `setting` from its variable, which is set; or says what is wrong with it.
std::optional<QString> readFromVariable(const ServerSetting& setting,
                                        const QProcessEnvironment& environment,
                                        ServerSettings& settings)
{
    const QString text = normalized(setting, environment.value(setting.variable));
    std::optional<QString> problem;
    if (!setting.isSwitch())
        problem = setting.read(text, settings);
    else if (const auto word = switchVariableText(setting, text))
        problem = setting.read(*word, settings);
    else
        problem = QStringLiteral("must be 1 or 0");
    if (!problem)
        return std::nullopt;
    return setting.commandLineError ? setting.commandLineError(text)
                                    : commandLineProblem(setting.variable, text, *problem);
}
} // namespace

ServerSettingsReader::ServerSettingsReader(const QCommandLineParser* flags,
                                           const QProcessEnvironment& environment,
                                           const QString& dataDir)
    : m_flags(flags)
    , m_environment(environment)
    , m_dataDir(dataDir)
    , m_file(dataDir)
{}

std::optional<QString> ServerSettingsReader::read(ServerSettings& settings,
                                                  QStringList& warnings) const
{
    Source timeoutSource = Source::None;
    Source networkSource = Source::None;
    Source egressSource = Source::None;
    for (const ServerSetting& setting : ServerSettingsSchema::settings()) {
        Source source = Source::None;
        if (auto problem = readOne(setting, settings, warnings, source))
            return problem;
        if (setting.key == QLatin1String("timeout"))
            timeoutSource = source;
        else if (setting.key == QLatin1String("network"))
            networkSource = source;
        else if (setting.key == QLatin1String("egress"))
            egressSource = source;
    }
    // --network (egress's older name) given to this server beats the egress= that the app
    // saves in settings.ini: `--network none` in a client's configuration means no network.
    if (networkSource == Source::CommandLine && egressSource != Source::CommandLine) {
        Source again = Source::None;
        if (auto problem = readOne(*ServerSettingsSchema::find(QStringLiteral("network")), settings,
                                   warnings, again))
            return problem;
    }
    // A settings.ini from before egress control says network=bridge: then the only way to give
    // sandboxes a network, and what the app saved for everyone who pressed Apply. What it meant
    // (sandboxes reach the web) is now the filtering proxy; the unfiltered bridge is chosen by its
    // own name (egress=bridge). The app writes egress= at its next save.
    if (networkSource == Source::File && egressSource == Source::None &&
        settings.egress.mode == EgressMode::Bridge) {
        settings.setEgressMode(EgressMode::Open);
        warnings << QStringLiteral(
            "settings.ini: network=bridge, from an earlier version, is read as egress=open (any "
            "public host, through the filtering proxy); write egress=bridge for the engine's "
            "unfiltered bridge");
    }
    return reconcileTimeouts(settings, timeoutSource, warnings);
}

std::optional<QString> ServerSettingsReader::readVariable(const QString& key,
                                                          const QProcessEnvironment& environment,
                                                          ServerSettings& settings)
{
    const ServerSetting* setting = ServerSettingsSchema::find(key);
    Q_ASSERT(setting);
    if (!isSet(*setting, environment))
        return std::nullopt;
    return readFromVariable(*setting, environment, settings);
}

std::optional<QString> ServerSettingsReader::readOne(const ServerSetting& setting,
                                                     ServerSettings& settings,
                                                     QStringList& warnings, Source& source) const
{
    if (m_flags && m_flags->isSet(setting.flag)) {
        const QString text = setting.isSwitch()   ? setting.switchText
                             : setting.repeatable ? m_flags->values(setting.flag).join(u'\n')
                                                  : m_flags->value(setting.flag);
        if (const auto problem = setting.read(text, settings)) {
            return setting.commandLineError
                       ? setting.commandLineError(text)
                       : commandLineProblem(QStringLiteral("--") +
                                                setting.flag.names().constFirst(),
                                            text, *problem);
        }
        source = Source::CommandLine;
        return std::nullopt;
    }
    if (isSet(setting, m_environment)) {
        source = Source::CommandLine;
        return readFromVariable(setting, m_environment, settings);
    }
    if (m_file.contains(setting.key)) {
        const QString text = normalized(setting, m_file.value(setting.key));
        if (const auto problem = setting.read(text, settings))
            warnings << storedProblem(setting.key, text, *problem);
        else
            source = Source::File;
    }
    return std::nullopt;
}

std::optional<QString> ServerSettingsReader::reconcileTimeouts(ServerSettings& settings,
                                                               Source timeoutSource,
                                                               QStringList& warnings) const
{
    if (timeoutSource == Source::None) {
        // Only a maximum below the built-in default: the default follows it down.
        settings.defaultTimeoutSeconds =
            std::min(settings.defaultTimeoutSeconds, settings.maxTimeoutSeconds);
    }
    const bool timeoutStored =
        !givenHere(QStringLiteral("timeout")) && m_file.contains(QStringLiteral("timeout"));
    const bool maxStored =
        !givenHere(QStringLiteral("max-timeout")) && m_file.contains(QStringLiteral("max-timeout"));
    if (settings.defaultTimeoutSeconds > settings.maxTimeoutSeconds &&
        (timeoutStored || maxStored)) {
        // One of the two comes from the settings file, which gives way: a value from this
        // command line (or environment) wins, and the file alone cannot stop a server.
        const bool maxGivesWay = !timeoutStored;
        double& yielding =
            maxGivesWay ? settings.maxTimeoutSeconds : settings.defaultTimeoutSeconds;
        const double kept =
            maxGivesWay ? settings.defaultTimeoutSeconds : settings.maxTimeoutSeconds;
        const QString why =
            maxGivesWay ? QStringLiteral("below --timeout (%1 s), which is the maximum instead")
                        : QStringLiteral("above max-timeout (%1 s), which is used instead");
        warnings << storedProblem(maxGivesWay ? QStringLiteral("max-timeout")
                                              : QStringLiteral("timeout"),
                                  QString::number(yielding), why.arg(kept));
        yielding = kept;
    }
    if (settings.defaultTimeoutSeconds > settings.maxTimeoutSeconds) {
        return QStringLiteral("--timeout (%1 s) is larger than --max-timeout (%2 s).")
            .arg(settings.defaultTimeoutSeconds)
            .arg(settings.maxTimeoutSeconds);
    }
    return std::nullopt;
}

bool ServerSettingsReader::givenHere(const QString& key) const
{
    const ServerSetting* setting = ServerSettingsSchema::find(key);
    Q_ASSERT(setting);
    return (m_flags && m_flags->isSet(setting->flag)) || isSet(*setting, m_environment);
}

QString ServerSettingsReader::storedProblem(const QString& key, const QString& text,
                                            const QString& problem) const
{
    return QStringLiteral("%1: %2 \"%3\" ignored: %4")
        .arg(QDir::toNativeSeparators(SettingsFile::path(m_dataDir)), key, text, problem);
}

} // namespace csm
