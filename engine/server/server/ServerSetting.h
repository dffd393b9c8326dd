#pragma once

#include <QCommandLineOption>
#include <QString>

#include <functional>
#include <optional>

namespace csm {

struct ServerSettings;

// One setting of the server, named once: its key in settings.ini, its flag, its environment
// variable, its --help text, and how its text is checked, stored and written back.
// ServerSettingsSchema lists them all; the parser, load() and save() walk that list.
struct ServerSetting
{
    // Where --help lists the flag, among the flags that are not settings.
    enum class Section
    {
        Container, // after --version
        Sandbox,   // after --pass-through-env
        History,   // after --no-history
        Output,    // after --secrets-file
    };

    Section section = Section::Sandbox;
    QString key; // in the [server] group of settings.ini
    QCommandLineOption flag;
    QString variable; // empty: none
    // The text a switch stands for ("true" for --allow-unlimited, "false" for --no-redact);
    // empty for a flag that takes a value.
    QString switchText;
    // Checks `text` and stores it in `settings`, or says what is wrong with it.
    std::function<std::optional<QString>(const QString& text, ServerSettings& settings)> read;
    // The value in `settings` as settings.ini stores it, which `read` reads back.
    std::function<QString(const ServerSettings& settings)> write;
    // The message for a bad flag or variable, when not the usual `--flag "text": problem`.
    std::function<QString(const QString& text)> commandLineError;
    // False for a value the desktop app offers no field for: the file may set it, but save()
    // does not write it.
    bool saved = true;
    // A flag that may be given more than once (--share): its values, one a line, are the text,
    // as the variable and settings.ini hold several.
    bool repeatable = false;

    bool isSwitch() const { return !switchText.isEmpty(); }
};

} // namespace csm
