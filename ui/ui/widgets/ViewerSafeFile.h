#pragma once

#include "history/RunFileRecord.h"

namespace csm {

// Whether a run's file may be opened with the desktop's default application without asking
// first. The file was made by a sandboxed program, and the desktop chooses the application by
// the file's name: a ".desktop", ".sh" or ".html" file can run what is in it. Only plain viewer
// types open at once: their bytes say what they are (the sniffed type) and their name agrees.
class ViewerSafeFile final
{
public:
    static bool opensWithoutAsking(const RunFileRecord& file);
};

} // namespace csm
