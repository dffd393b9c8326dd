#include "NotebookCheck.h"

#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QStringList>

QString NotebookCheck::python()
{
    const QStringList candidates{QStandardPaths::findExecutable(QStringLiteral("python3")),
                                 QStringLiteral("/usr/bin/python3")};
    for (const QString& candidate : candidates) {
        if (candidate.isEmpty() || !QFileInfo::exists(candidate))
            continue;
        QProcess probe;
        probe.setProgram(candidate);
        probe.setArguments({QStringLiteral("-c"), QStringLiteral("import nbformat, jsonschema")});
        probe.start();
        if (probe.waitForFinished(30'000) && probe.exitStatus() == QProcess::NormalExit &&
            probe.exitCode() == 0)
            return candidate;
    }
    return {};
}

QString NotebookCheck::validate(const QString& path)
{
    const QString interpreter = python();
    if (interpreter.isEmpty()) {
        return QStringLiteral("python3 with nbformat and jsonschema is missing: install "
                              "python3-nbformat and python3-jsonschema (scripts/install-deps "
                              "--test)");
    }
    QProcess process;
    // The reference validator (python3-jsonschema) rather than nbformat's faster default.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("NBFORMAT_VALIDATOR"), QStringLiteral("jsonschema"));
    process.setProcessEnvironment(environment);
    process.setProgram(interpreter);
    process.setArguments(
        {QStringLiteral("-W"), QStringLiteral("error"), QStringLiteral("-c"),
         QStringLiteral(
             "import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))"),
         path});
    process.start();
    if (!process.waitForFinished(60'000) || process.exitStatus() != QProcess::NormalExit)
        return QStringLiteral("the nbformat check did not finish: ") + process.errorString();
    if (process.exitCode() != 0) {
        const QString errors = QString::fromUtf8(process.readAllStandardError()).trimmed();
        return QStringLiteral("nbformat refuses %1: %2").arg(path, errors);
    }
    return {};
}
