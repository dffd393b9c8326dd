#include "runtime/EngineFileSightProbe.h"

#include "runtime/ContainerRuntime.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QStringList>
#include <QTemporaryDir>

#include <algorithm>

namespace csm {

namespace {

constexpr char kMarkerName[] = "marker";

struct Finished
{
    bool ok = false; // started and exited in time
    int exitCode = -1;
    QByteArray standardOutput;
    QByteArray standardError;
};

Finished runToTheEnd(const ContainerRuntime& runtime, const QStringList& arguments, int timeoutMs)
{
    QProcess process;
    process.setProgram(runtime.program());
    process.setArguments(arguments);
    process.setProcessEnvironment(runtime.processEnvironment());
    process.start();
    Finished finished;
    if (!process.waitForStarted(timeoutMs)) {
        finished.standardError = process.errorString().toUtf8();
        return finished;
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished(5'000);
        finished.standardError = "no answer in time";
        return finished;
    }
    finished.ok = process.exitStatus() == QProcess::NormalExit;
    finished.exitCode = process.exitCode();
    finished.standardOutput = process.readAllStandardOutput();
    finished.standardError = process.readAllStandardError();
    return finished;
}

QString firstLine(const QByteArray& text)
{
    return QString::fromUtf8(text).trimmed().section(QLatin1Char('\n'), 0, 0).left(300);
}

} // namespace

EngineFileSightProbe::Result EngineFileSightProbe::ask(const ContainerRuntime& runtime,
                                                       const QString& image,
                                                       const QString& launcher, int timeoutMs)
{
    if (launcher.isEmpty())
        return {Answer::Unknown, QStringLiteral("the sandbox's launcher was not found here")};
    const Finished check = runToTheEnd(runtime, runtime.imageCheckArguments(image), timeoutMs);
    if (!check.ok)
        return {
            Answer::Unknown,
            QStringLiteral("the engine did not answer (%1)").arg(firstLine(check.standardError))};
    const ImageCheck present = runtime.interpretImageCheck(check.exitCode, check.standardError);
    if (present.status != ImageCheck::Status::Present)
        return {Answer::Unknown, QStringLiteral("no container could be started there (%1: %2)")
                                     .arg(image, present.detail.section(QLatin1Char('\n'), 0, 0))};

    // Under the temporary folder, where a local engine's sandboxes get their folders; readable
    // by the sandbox's user, which is not ours.
    QTemporaryDir folder(QDir::temp().filePath(QStringLiteral("csm-engine-sight-XXXXXX")));
    if (!folder.isValid())
        return {Answer::Unknown, folder.errorString()};
    const QByteArray token = QByteArray::number(QRandomGenerator::system()->generate64(), 36) +
                             QByteArray::number(QRandomGenerator::system()->generate64(), 36);
    QFile marker(folder.filePath(QLatin1String(kMarkerName)));
    if (!marker.open(QIODevice::WriteOnly) || marker.write(token) != token.size())
        return {Answer::Unknown, marker.errorString()};
    marker.close();
    const auto readable = QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther;
    const auto executable = QFileDevice::ExeOwner | QFileDevice::ExeGroup | QFileDevice::ExeOther;
    marker.setPermissions(readable | QFileDevice::WriteOwner);
    QFile::setPermissions(folder.path(), readable | executable | QFileDevice::WriteOwner);

    const Finished run = runToTheEnd(
        runtime,
        runtime.fileSightArguments(image, folder.path(), QLatin1String(kMarkerName), launcher),
        timeoutMs);
    if (!run.ok)
        return {Answer::Unknown,
                QStringLiteral("the engine did not answer (%1)").arg(firstLine(run.standardError))};
    return interpret(run.exitCode, run.standardOutput, run.standardError, token,
                     {folder.path(), launcher});
}

EngineFileSightProbe::Result EngineFileSightProbe::interpret(int exitCode,
                                                             const QByteArray& standardOutput,
                                                             const QByteArray& standardError,
                                                             const QByteArray& token,
                                                             const QStringList& paths)
{
    if (exitCode == 0 && standardOutput == token)
        return {Answer::Sees, QStringLiteral("a container read a file this machine had just made")};
    if (exitCode == 0)
        return {Answer::DoesNotSee,
                QStringLiteral("a container found other contents at the path of a file this "
                               "machine had just made")};
    // The engine refused a mount whose source it has not, or the mount was there but empty
    // (`cat` found no marker): their words name the path. Other words (a missing `cat`, a
    // broken engine) say nothing about where the engine is.
    const QString said = QString::fromUtf8(standardError);
    const bool namesAPath = std::any_of(paths.cbegin(), paths.cend(),
                                        [&](const QString& path) { return said.contains(path); });
    if (namesAPath)
        return {Answer::DoesNotSee,
                QStringLiteral("a container could not mount a file of this machine (%1)")
                    .arg(firstLine(standardError))};
    return {Answer::Unknown, QStringLiteral("a container could not be started there (%1)")
                                 .arg(firstLine(standardError))};
}

} // namespace csm
