#include "core/Logging.h"

Q_LOGGING_CATEGORY(lcEngine, "csm.engine", QtInfoMsg)
Q_LOGGING_CATEGORY(lcHistory, "csm.history", QtInfoMsg)
Q_LOGGING_CATEGORY(lcHttp, "csm.http", QtInfoMsg)
Q_LOGGING_CATEGORY(lcMcp, "csm.mcp", QtInfoMsg)
Q_LOGGING_CATEGORY(lcSandbox, "csm.sandbox", QtInfoMsg)
Q_LOGGING_CATEGORY(lcServer, "csm.server", QtInfoMsg)
