#include "platform/MachineResources.h"

#include <QThread>

#include <algorithm>

#if defined(Q_OS_UNIX)
#include <unistd.h>
#endif

namespace csm {

int MachineResources::cpuCount()
{
    return std::max(1, QThread::idealThreadCount());
}

qint64 MachineResources::physicalMemoryBytes()
{
#if defined(Q_OS_UNIX) && defined(_SC_PHYS_PAGES)
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && pageSize > 0)
        return qint64(pages) * pageSize;
#endif
    return 0;
}

} // namespace csm
