#pragma once

#include "runtime/Language.h"
#include "sandbox/InputFile.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace csm {

// One program to run in a fresh sandbox, or a cell of an interpreter session.
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
    // A cell of the interpreter session `interpreterName` of the owner whose key is
    // `interpreterOwner` (InterpreterSessions::prepare started it) rather than a program in a
    // container of its own; empty for the latter.
    QString interpreterOwner;
    QString interpreterName;
};

} // namespace csm
