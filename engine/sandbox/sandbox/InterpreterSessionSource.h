#pragma once

#include "runtime/Language.h"

#include <QString>

class QObject;

namespace csm {

class InterpreterSession;

// What InterpreterSessions needs of the runner that owns them: a new session's container, and
// what the sandboxes running take of the machine's memory.
class InterpreterSessionSource
{
public:
    virtual ~InterpreterSessionSource() = default;

    // A new persistent session of `language` in `image` (owned by `parent`), starting, or
    // taken from the warm pool when one waits there; null when the language has no session
    // driver.
    virtual InterpreterSession* startSession(Language language, const QString& image,
                                             QObject* parent) = 0;
    // The memory limit of each sandbox (--memory); 0 or less: none.
    virtual qint64 sandboxMemoryBytes() const = 0;
    // One-shot runs that hold their sandbox now.
    virtual int oneShotsRunning() const = 0;
};

} // namespace csm
