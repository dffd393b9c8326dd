#pragma once

#include <QString>
#include <QStringView>

#include <optional>

namespace csm {

// Where a recorded run stands. Only Running is not final.
enum class RunStatus
{
    Running,     // started, not ended yet (or its server died and nobody has noticed yet)
    Ok,          // the program exited with code 0
    Error,       // the program exited with another code, or died of a signal
    Timeout,     // killed at its deadline
    Cancelled,   // killed on the client's request or at shutdown
    Oom,         // killed by the kernel at the memory limit
    EngineError, // the program never ran: engine missing, image missing, daemon down...
    Interrupted, // its server process ended before the run did
};

// The names a status has in the history database and in front of users.
class RunStatusTraits final
{
public:
    // "running", "ok", "error", "timeout", "cancelled", "oom", "engine_error", "interrupted".
    // They are stored in the database: never rename one.
    static QString toString(RunStatus status);
    // The exact (lower-case) names of toString; anything else is nullopt.
    static std::optional<RunStatus> fromString(QStringView text);
    static bool isFinal(RunStatus status) { return status != RunStatus::Running; }
};

} // namespace csm
