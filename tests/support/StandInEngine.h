#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

// Writes `script` (a shell script, "#!/bin/sh" first) to `path` as an executable only its owner
// may use: a stand-in for an engine's CLI that a test points a runtime at. True once it is
// there and executable.
inline bool writeStandInEngine(const QString& path, const QByteArray& script)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(script) != script.size())
        return false;
    file.close();
    return file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                               QFileDevice::ExeOwner);
}
