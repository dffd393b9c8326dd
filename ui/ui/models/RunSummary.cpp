#include "ui/models/RunSummary.h"

#include "history/RunRecord.h"
#include "ui/models/RunStatusLook.h"

namespace csm {

namespace {

QString capped(QString line)
{
    line = line.simplified();
    if (line.size() > RunSummary::kMaxChars)
        line = line.left(RunSummary::kMaxChars - 1) + QChar(0x2026);
    return line;
}

bool isComment(QStringView line)
{
    return line.startsWith(u'#') || line.startsWith(u"//");
}

} // namespace

QString RunSummary::firstCodeLine(const QString& code)
{
    QString first;
    for (QStringView line : QStringView(code).split(u'\n')) {
        line = line.trimmed();
        if (line.isEmpty())
            continue;
        if (first.isEmpty())
            first = line.toString();
        if (!isComment(line))
            return capped(line.toString());
    }
    return capped(first);
}

QString RunSummary::lastLine(const QString& text)
{
    const QList<QStringView> lines = QStringView(text).split(u'\n');
    for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
        if (!it->trimmed().isEmpty())
            return capped(it->toString());
    }
    return {};
}

QString RunSummary::problem(const RunRecord& run)
{
    // A program's error names itself in Stderr's last line (an exception); a run the engine
    // failed, refused or stopped has the reason in its message; a kill at a limit leaves the
    // status to say it, and the code to say what was killed.
    if (run.status == RunStatus::Error) {
        if (QString error = lastLine(run.stderrText); !error.isEmpty())
            return error;
    }
    if (run.status == RunStatus::Ok || run.status == RunStatus::Running)
        return {};
    return capped(run.errorMessage.section(u'\n', 0, 0));
}

QString RunSummary::of(const RunRecord& run)
{
    const QString why = problem(run);
    return why.isEmpty() ? firstCodeLine(run.code) : why;
}

} // namespace csm
