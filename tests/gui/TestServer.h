#pragma once

#include "CallResult.h"
#include "server/EmbeddedServer.h"
#include "server/ServerOptionsParser.h"
#include "TestEngine.h"
#include "ui/MainWindow.h"

#include <QCoreApplication>
#include <QProcessEnvironment>
#include <QTest>

#include <memory>

// The app's own server as the GUI tests run it: on the test engine, with its data in `dataDir`
// and no warm pool (the containers a test counts are its own). Started; null when the options
// do not parse.
inline std::unique_ptr<csm::EmbeddedServer> startTestServer(const QString& dataDir)
{
    const auto parsed = csm::ServerOptionsParser::parse(
        {QStringLiteral("code-sandbox-mcp"), QStringLiteral("--data-dir"), dataDir,
         QStringLiteral("--engine"), TestEngine::name(), QStringLiteral("--pool"),
         QStringLiteral("0")},
        QProcessEnvironment::systemEnvironment());
    if (!parsed.hasValue())
        return nullptr;
    auto server = std::make_unique<csm::EmbeddedServer>(*parsed);
    server->start();
    return server;
}

// The app as the GUI tests that need its server run it (initTestCase): the server started in
// `dataDir`, and the main window over it, shown, once the server runs. A failure is the test's.
inline void startAppWithServer(const QString& dataDir, std::unique_ptr<csm::EmbeddedServer>& server,
                               std::unique_ptr<csm::MainWindow>& window)
{
    server = startTestServer(dataDir);
    QVERIFY(server);
    window = std::make_unique<csm::MainWindow>(dataDir, server.get());
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    QTRY_VERIFY(server->status().running);
}

// Its end (cleanupTestCase): the window, then the server (which shuts down and joins its thread),
// and none of this test's containers is left.
inline void stopAppWithServer(std::unique_ptr<csm::EmbeddedServer>& server,
                              std::unique_ptr<csm::MainWindow>& window)
{
    window.reset();
    server.reset();
    QCOMPARE(TestEngine::waitUntilNoContainerWithLabel(
                 callresult::pidLabel(QCoreApplication::applicationPid()), 15'000),
             QStringList());
}
