#include "TestEngine.h"

#include <QDeadlineTimer>
#include <QThread>

QString TestEngine::name()
{
    const QString engine = qEnvironmentVariable("CSM_TEST_ENGINE");
    return engine.isEmpty() ? QStringLiteral("podman") : engine;
}

QString TestEngine::localImage(const QString& image)
{
    return name() == QLatin1String("podman") ? QStringLiteral("localhost/") + image : image;
}

QByteArray TestEngine::run(const QStringList& arguments, bool* ok)
{
    QProcess process;
    process.start(name(), arguments);
    const bool finished = process.waitForFinished(120'000);
    const bool success =
        finished && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
    if (!success) {
        qWarning("%s %s failed: %s", qPrintable(name()), qPrintable(arguments.join(u' ')),
                 process.readAllStandardError().constData());
    }
    if (ok)
        *ok = success;
    return process.readAllStandardOutput();
}

bool TestEngine::hasLocalImage(const QString& image)
{
    bool ok = false;
    run({QStringLiteral("image"), QStringLiteral("inspect"), localImage(image)}, &ok);
    return ok;
}

QStringList TestEngine::containersWithLabel(const QString& label)
{
    const QByteArray out = run({QStringLiteral("ps"), QStringLiteral("-a"),
                                QStringLiteral("--filter"), QStringLiteral("label=") + label,
                                QStringLiteral("--format"), QStringLiteral("{{.Names}}")});
    return QString::fromUtf8(out).split(u'\n', Qt::SkipEmptyParts);
}

QStringList TestEngine::waitUntilNoContainerWithLabel(const QString& label, int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    QStringList remaining = containersWithLabel(label);
    while (!remaining.isEmpty() && !deadline.hasExpired()) {
        QThread::msleep(200);
        remaining = containersWithLabel(label);
    }
    return remaining;
}
