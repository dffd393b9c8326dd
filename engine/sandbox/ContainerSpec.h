#pragma once

#include "sandbox/SandboxPolicy.h"

#include <QMap>
#include <QString>
#include <QStringList>

namespace csm {

// Everything needed to start one sandbox container; a runtime turns it into CLI arguments.
struct ContainerSpec
{
    QString name;
    QString image;
    QStringList command;
    SandboxPolicy policy;
    // Variables passed by name only (`-e NAME`): their values travel in the engine's environment.
    QStringList environmentNames;
    // Non-secret variables set in the sandbox, e.g. HOME.
    QMap<QString, QString> environment;
    QMap<QString, QString> labels;
};

} // namespace csm
