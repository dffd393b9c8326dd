#include "runtime/Language.h"

#include "runtime/NodeInterpreterDriver.h"
#include "runtime/PythonBootstrap.h"

namespace csm {

QString LanguageTraits::id(Language language)
{
    switch (language) {
    case Language::Python:
        return QStringLiteral("python");
    case Language::JavaScript:
        return QStringLiteral("javascript");
    }
    Q_UNREACHABLE();
}

QString LanguageTraits::displayName(Language language)
{
    switch (language) {
    case Language::Python:
        return QStringLiteral("Python");
    case Language::JavaScript:
        return QStringLiteral("JavaScript");
    }
    Q_UNREACHABLE();
}

QStringList LanguageTraits::interpreterCommand(Language language)
{
    switch (language) {
    case Language::Python:
        return PythonBootstrap::command(PythonBootstrap::Imports::OnDemand);
    case Language::JavaScript:
        return {QStringLiteral("node"), QStringLiteral("-")};
    }
    Q_UNREACHABLE();
}

QStringList LanguageTraits::pooledInterpreterCommand(Language language)
{
    switch (language) {
    case Language::Python:
        return PythonBootstrap::command(PythonBootstrap::Imports::Preload);
    case Language::JavaScript:
        return interpreterCommand(language);
    }
    Q_UNREACHABLE();
}

bool LanguageTraits::pooledInterpreterSignalsReady(Language language)
{
    return language == Language::Python; // PythonBootstrap's preload
}

QStringList LanguageTraits::sessionCommand(Language language)
{
    switch (language) {
    case Language::Python:
        return PythonBootstrap::sessionCommand();
    case Language::JavaScript:
        return NodeInterpreterDriver::command();
    }
    Q_UNREACHABLE();
}

QStringList LanguageTraits::pooledSessionCommand(Language language)
{
    switch (language) {
    case Language::Python:
        return PythonBootstrap::sessionCommand(PythonBootstrap::Imports::Preload);
    case Language::JavaScript:
        return NodeInterpreterDriver::command();
    }
    Q_UNREACHABLE();
}

QString LanguageTraits::defaultImageName(Language language)
{
    switch (language) {
    case Language::Python:
        return QStringLiteral("code-sandbox-python:latest");
    case Language::JavaScript:
        return QStringLiteral("code-sandbox-js:latest");
    }
    Q_UNREACHABLE();
}

std::optional<Language> LanguageTraits::parse(const QString& text)
{
    const QString name = text.trimmed().toLower();
    if (name == QLatin1String("python") || name == QLatin1String("py") ||
        name == QLatin1String("python3"))
        return Language::Python;
    if (name == QLatin1String("javascript") || name == QLatin1String("js") ||
        name == QLatin1String("node") || name == QLatin1String("nodejs"))
        return Language::JavaScript;
    return std::nullopt;
}

} // namespace csm
