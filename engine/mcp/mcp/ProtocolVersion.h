#pragma once

#include <QString>
#include <QStringList>

namespace csm {

// The MCP protocol revisions this server speaks, newest first.
class ProtocolVersion final
{
public:
    static QStringList supported();
    static QString latest();
    static bool isSupported(const QString& version);
    // The client's version when we speak it, else our latest (the client then decides).
    static QString negotiate(const QString& requested);
};

} // namespace csm
