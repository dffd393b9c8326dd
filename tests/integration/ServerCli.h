#pragma once

#include <QByteArray>
#include <QProcess>
#include <QStringList>

// One run of the real code-sandbox-mcp as a command (`history ...`, `secrets ...`), not a server.
namespace servercli {

struct Result
{
    int exitCode = -1; // -1: it crashed or did not end in time
    QByteArray out;
    QByteArray err;
};

// `code-sandbox-mcp ARGS` with `input` on its stdin (how a value reaches `secrets set`), in
// `environment` (the test's own unless given), given `timeoutMs` to end.
inline Result run(const QStringList& arguments, const QByteArray& input = {},
                  const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment(),
                  int timeoutMs = 30'000)
{
    QProcess process;
    process.setProcessEnvironment(environment);
    process.setProgram(QStringLiteral(CSM_SERVER_BINARY));
    process.setArguments(arguments);
    process.start();
    Result result;
    if (!process.waitForStarted(10'000))
        return result;
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return result;
    }
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    return result;
}

} // namespace servercli
