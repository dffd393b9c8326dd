#include "secrets/LogRedaction.h"

#include <QMutex>
#include <QMutexLocker>

#include <cstdio>

namespace csm {

namespace {

struct State
{
    QMutex mutex;
    SecretRedactor redactor;
    QtMessageHandler previous = nullptr;
    bool installed = false;
};

State& state()
{
    static State instance;
    return instance;
}

void redactingHandler(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    const QString safe = LogRedaction::redact(message);
    if (const QtMessageHandler previous = state().previous) {
        previous(type, context, safe);
        return;
    }
    const QString line = qFormatLogMessage(type, context, safe);
    std::fprintf(stderr, "%s\n", line.toLocal8Bit().constData());
    std::fflush(stderr);
}

} // namespace

void LogRedaction::install()
{
    State& current = state();
    QMutexLocker lock(&current.mutex);
    if (current.installed)
        return;
    current.installed = true;
    current.previous = qInstallMessageHandler(redactingHandler);
}

void LogRedaction::setRedactor(const SecretRedactor& redactor)
{
    State& current = state();
    QMutexLocker lock(&current.mutex);
    current.redactor = redactor;
}

QString LogRedaction::redact(const QString& message)
{
    SecretRedactor redactor;
    {
        // A copy (implicitly shared) so that the search runs outside the lock.
        State& current = state();
        QMutexLocker lock(&current.mutex);
        redactor = current.redactor;
    }
    return redactor.redact(message);
}

} // namespace csm
