#pragma once

#include "runtime/Language.h"
#include "sandbox/InputFile.h"

#include <QByteArray>
#include <QList>
#include <QPointer>
#include <QString>

namespace csm {

class InterpreterSession;

// One program to run in a fresh sandbox.
struct RunRequest
{
    Language language = Language::Python;
    QString image;
    QByteArray code;
    int timeoutMs = 30'000;
    // Placed under the working directory before the program starts.
    QList<InputFile> inputFiles;
    // The host folder the files the program leaves in its output folder are written to, as they
    // arrive; empty: none are collected.
    QString outputDirectory;
    // A cell of this session rather than a program in a container of its own.
    QPointer<InterpreterSession> session;
};

} // namespace csm
