#pragma once

#include <QtGlobal>

namespace csm {

// What this machine has, for limits sized from it (the default cap on running sandboxes).
class MachineResources final
{
public:
    // Logical CPUs, at least 1.
    static int cpuCount();
    // Physical memory in bytes, or 0 when it cannot be read.
    static qint64 physicalMemoryBytes();
};

} // namespace csm
