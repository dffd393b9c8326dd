#pragma once

#include "runtime/Language.h"

#include <QByteArray>
#include <QString>

namespace csm {

// One program to run in a fresh sandbox.
struct RunRequest
{
    Language language = Language::Python;
    QString image;
    QByteArray code;
    int timeoutMs = 30'000;
};

} // namespace csm
