#pragma once

#include "sandbox/InputFile.h"

#include <QByteArray>
#include <QList>

namespace csm {

// What the server sends a sandbox's launcher (csm/launcher_protocol.h): the program and the
// files to place in the working directory before it starts, length-prefixed, the same on a cold
// container's stdin and on a warm one's socket.
class LauncherRequest final
{
public:
    static QByteArray encode(const QByteArray& program, const QList<InputFile>& files);
};

} // namespace csm
