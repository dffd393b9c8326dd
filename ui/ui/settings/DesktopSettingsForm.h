#pragma once

#include "server/SettingFormField.h"
#include "ui/settings/DesktopSettings.h"

#include <functional>
#include <optional>
#include <vector>

namespace csm {

// The desktop app's own settings that the Settings page offers (approval and notifications), as
// the server's settings are offered (ServerSettingsForm): a field each, read and written as text.
class DesktopSettingsForm final
{
public:
    struct Setting
    {
        SettingFormField field;
        // Checks `text` and stores it in `settings`, or says what is wrong with it.
        std::function<std::optional<QString>(const QString& text, DesktopSettings& settings)> read;
        std::function<QString(const DesktopSettings& settings)> write;
    };

    static const std::vector<Setting>& settings();
};

} // namespace csm
