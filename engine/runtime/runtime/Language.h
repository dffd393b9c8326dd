#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace csm {

enum class Language
{
    Python,
    JavaScript,
};

// What the sandbox needs to know of a language: how to run a program read from stdin.
class LanguageTraits final
{
public:
    // "python" / "javascript": the names CONTAINER_LANGUAGE and the history use.
    static QString id(Language language);
    static QString displayName(Language language);
    // The interpreter reading the whole program from stdin: `node -`, or for Python
    // `python3 -u -c BOOTSTRAP` (see PythonBootstrap).
    static QStringList interpreterCommand(Language language);
    // The same for a pooled container, whose interpreter waits for its program: it may spend
    // that time importing the modules programs usually need (Python: numpy, pandas, pyplot).
    static QStringList pooledInterpreterCommand(Language language);
    // Whether that interpreter says when its imports are done (ContainerSpec::
    // interpreterSignalsReady); otherwise it is ready as soon as it runs.
    static bool pooledInterpreterSignalsReady(Language language);
    // A session's driver (ContainerSpec::session): PythonBootstrap's, NodeInterpreterDriver's.
    static QStringList sessionCommand(Language language);
    // The same for a warm pool's session, started before it is asked for: Python's imports the
    // modules programs usually need before it says it is ready.
    static QStringList pooledSessionCommand(Language language);
    // The locally built default image's name, without a registry.
    static QString defaultImageName(Language language);
    // Accepts python|py|javascript|js|node (any case).
    static std::optional<Language> parse(const QString& text);
};

} // namespace csm
