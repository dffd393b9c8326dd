#pragma once

#include "CallResult.h"
#include "McpStdioClient.h"
#include "TestEngine.h"

#include <QTest>

// Ends a stdio server as an MCP client does (end of stdin) and checks that it exits and leaves
// no container of its own behind. (Docker may still be finishing a removal it started itself: a
// moment's grace.)
inline void expectCleanExit(McpStdioClient& server)
{
    const qint64 pid = server.pid();
    server.closeStdin();
    QVERIFY(server.waitForExit(30'000));
    QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(callresult::pidLabel(pid), 5'000),
             QStringList());
}
