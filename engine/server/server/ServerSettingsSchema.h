#pragma once

#include "server/ServerSetting.h"

#include <vector>

class QCommandLineParser;

namespace csm {

// Every setting of the server that settings.ini may hold, in the order --help lists them.
class ServerSettingsSchema final
{
public:
    static const std::vector<ServerSetting>& settings();
    // The setting stored under `key`; null for a key that is not one.
    static const ServerSetting* find(const QString& key);
    // Adds the flags of `section`'s settings to `parser`.
    static void addFlags(QCommandLineParser& parser, ServerSetting::Section section);
};

} // namespace csm
