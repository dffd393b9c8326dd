#pragma once

#include "server/SettingFormField.h"

#include <vector>

namespace csm {

// The server's settings as the desktop app's Settings page offers them: one field per setting
// (ServerSettingsSchema names it by key), in the page's order, with its group, label, widget,
// unit and range.
class ServerSettingsForm final
{
public:
    static const std::vector<SettingFormField>& fields();
};

} // namespace csm
