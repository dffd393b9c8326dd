#include "server/ServerOptionsParser.h"

#include "runtime/RuntimeFactory.h"
#include "sandbox/Language.h"

#include <algorithm>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <QSet>

namespace csm {

namespace {
const QRegularExpression& variableNamePattern()
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
    return pattern;
}

std::optional<double> positiveSeconds(const QString& text)
{
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !(value > 0) || value > 86'400)
        return std::nullopt;
    return value;
}
} // namespace

std::variant<ServerOptions, QString>
ServerOptionsParser::parse(const QStringList& arguments, const QProcessEnvironment& environment)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "An MCP server that runs Python and JavaScript in fresh, locked-down containers.\n"
        "With no arguments it serves MCP over stdio, as MCP clients launch it.\n\n"
        "Environment: CODE_SANDBOX_ENGINE (podman|docker), CONTAINER_IMAGE with "
        "CONTAINER_LANGUAGE (python|javascript) to replace that language's image."));
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help and exit."));
    const QCommandLineOption version({QStringLiteral("V"), QStringLiteral("version")},
                                     QStringLiteral("Show the version and exit."));
    const QCommandLineOption engine(
        QStringLiteral("engine"),
        QStringLiteral("Container engine: podman, docker or auto (podman, then docker). "
                       "Default: $CODE_SANDBOX_ENGINE, else auto."),
        QStringLiteral("name"));
    const QCommandLineOption pythonImage(
        QStringLiteral("python-image"),
        QStringLiteral("Image for run_python_code (default: the locally built "
                       "code-sandbox-python:latest)."),
        QStringLiteral("image"));
    const QCommandLineOption jsImage(
        QStringLiteral("js-image"),
        QStringLiteral(
            "Image for run_js_code (default: the locally built code-sandbox-js:latest)."),
        QStringLiteral("image"));
    const QCommandLineOption passThrough(
        QStringLiteral("pass-through-env"),
        QStringLiteral("Comma-separated names of this server's environment variables to pass into "
                       "every sandbox (by name; values never appear in a command line). May be "
                       "repeated."),
        QStringLiteral("names"));
    const QCommandLineOption timeout(
        QStringLiteral("timeout"),
        QStringLiteral("Default timeout of a run in seconds, when a call gives none (default 30)."),
        QStringLiteral("seconds"));
    const QCommandLineOption maxTimeout(
        QStringLiteral("max-timeout"),
        QStringLiteral("Largest timeout_seconds a call may ask for (default 600)."),
        QStringLiteral("seconds"));
    const QCommandLineOption verbose({QStringLiteral("v"), QStringLiteral("verbose")},
                                     QStringLiteral("Log details to stderr."));
    parser.addOptions(
        {help, version, engine, pythonImage, jsImage, passThrough, timeout, maxTimeout, verbose});

    if (!parser.parse(arguments))
        return parser.errorText();
    if (!parser.positionalArguments().isEmpty()) {
        return QStringLiteral("Unexpected argument: %1")
            .arg(parser.positionalArguments().constFirst());
    }

    ServerOptions options;
    if (parser.isSet(help)) {
        options.action = ServerOptions::Action::ShowHelp;
        options.helpText = parser.helpText();
        return options;
    }
    if (parser.isSet(version)) {
        options.action = ServerOptions::Action::ShowVersion;
        return options;
    }
    options.verbose = parser.isSet(verbose);

    options.engine = parser.isSet(engine)
                         ? parser.value(engine)
                         : environment.value(QStringLiteral("CODE_SANDBOX_ENGINE"));
    options.engine = options.engine.trimmed().toLower();
    if (options.engine == QLatin1String("auto"))
        options.engine.clear();
    if (!RuntimeFactory::isKnownEngine(options.engine))
        return QStringLiteral("Unknown engine \"%1\": use podman, docker or auto.")
            .arg(options.engine);

    // The reference server applies CONTAINER_IMAGE to both tools, so JavaScript ends up fed to
    // a Python image; here it replaces only the image of CONTAINER_LANGUAGE's tool.
    const QString containerImage = environment.value(QStringLiteral("CONTAINER_IMAGE")).trimmed();
    if (!containerImage.isEmpty()) {
        const QString languageText = environment.value(QStringLiteral("CONTAINER_LANGUAGE"));
        std::optional<Language> language = LanguageTraits::parse(languageText);
        if (!language) {
            options.warnings << QStringLiteral("CONTAINER_IMAGE is set but CONTAINER_LANGUAGE is "
                                               "\"%1\", not python or javascript: using the image "
                                               "for Python.")
                                    .arg(languageText);
            language = Language::Python;
        }
        (*language == Language::Python ? options.pythonImage : options.jsImage) = containerImage;
    }
    if (parser.isSet(pythonImage))
        options.pythonImage = parser.value(pythonImage).trimmed();
    if (parser.isSet(jsImage))
        options.jsImage = parser.value(jsImage).trimmed();

    QSet<QString> seen;
    for (const QString& list : parser.values(passThrough)) {
        for (const QString& rawName : list.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            const QString name = rawName.trimmed();
            if (!variableNamePattern().match(name).hasMatch()) {
                return QStringLiteral("--pass-through-env: \"%1\" is not a variable name (give "
                                      "names only; values are read from this server's "
                                      "environment).")
                    .arg(name);
            }
            if (seen.contains(name))
                continue;
            seen.insert(name);
            if (!environment.contains(name)) {
                options.warnings << QStringLiteral("--pass-through-env: %1 is not set in the "
                                                   "server's environment; it is not passed.")
                                        .arg(name);
                continue;
            }
            options.passThroughEnvironment << name;
        }
    }

    if (parser.isSet(maxTimeout)) {
        const auto value = positiveSeconds(parser.value(maxTimeout));
        if (!value)
            return QStringLiteral("--max-timeout must be a positive number of seconds.");
        options.maxTimeoutSeconds = *value;
    }
    if (parser.isSet(timeout)) {
        const auto value = positiveSeconds(parser.value(timeout));
        if (!value)
            return QStringLiteral("--timeout must be a positive number of seconds.");
        options.defaultTimeoutSeconds = *value;
    } else {
        // Only a --max-timeout below the built-in default: the default follows it down.
        options.defaultTimeoutSeconds =
            std::min(options.defaultTimeoutSeconds, options.maxTimeoutSeconds);
    }
    if (options.defaultTimeoutSeconds > options.maxTimeoutSeconds) {
        return QStringLiteral("--timeout (%1 s) is larger than --max-timeout (%2 s).")
            .arg(options.defaultTimeoutSeconds)
            .arg(options.maxTimeoutSeconds);
    }
    return options;
}

} // namespace csm
