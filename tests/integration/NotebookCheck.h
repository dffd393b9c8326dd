#pragma once

#include <QString>

// nbformat's own check of a Jupyter notebook (Debian's python3-nbformat, with the reference
// jsonschema validator, warnings as errors: a repair nbformat would make quietly, such as a
// missing cell id, fails too).
class NotebookCheck final
{
public:
    // A python3 that can import nbformat and jsonschema: the one on PATH, or Debian's (where
    // python3-nbformat installs them; a venv earlier on PATH does not see them). Empty if none.
    static QString python();
    // Empty when nbformat accepts the notebook at `path`; else why not (nbformat's errors, or
    // that nbformat is missing).
    static QString validate(const QString& path);
};
