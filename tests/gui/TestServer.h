#pragma once

#include "server/EmbeddedServer.h"
#include "server/ServerOptionsParser.h"
#include "TestEngine.h"

#include <QProcessEnvironment>

#include <memory>
#include <variant>

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
    if (!std::holds_alternative<csm::ServerOptions>(parsed))
        return nullptr;
    auto server = std::make_unique<csm::EmbeddedServer>(std::get<csm::ServerOptions>(parsed));
    server->start();
    return server;
}
