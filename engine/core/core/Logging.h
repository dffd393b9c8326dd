#pragma once

#include <QLoggingCategory>

// One category per layer, so `QT_LOGGING_RULES="csm.mcp.debug=true"` turns on what is needed.
Q_DECLARE_LOGGING_CATEGORY(lcEngine)
Q_DECLARE_LOGGING_CATEGORY(lcHistory)
Q_DECLARE_LOGGING_CATEGORY(lcHttp)
Q_DECLARE_LOGGING_CATEGORY(lcMcp)
Q_DECLARE_LOGGING_CATEGORY(lcSandbox)
Q_DECLARE_LOGGING_CATEGORY(lcServer)
