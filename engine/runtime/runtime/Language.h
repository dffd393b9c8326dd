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
    // The interpreter reading the whole program from stdin, e.g. `python3 -u -`.
    static QStringList interpreterCommand(Language language);
    // The locally built default image's name, without a registry.
    static QString defaultImageName(Language language);
    // Accepts python|py|javascript|js|node (any case).
    static std::optional<Language> parse(const QString& text);
};

} // namespace csm
