#include "ui/widgets/HostListEditor.h"

namespace csm {

HostListEditor::HostListEditor(const QString& placeholder, QWidget* parent)
    : QPlainTextEdit(parent)
{
    setPlaceholderText(placeholder);
    setTabChangesFocus(true);
    setMaximumHeight(fontMetrics().lineSpacing() * 7);
}

void HostListEditor::setHosts(const QList<HostPattern>& hosts)
{
    QStringList texts;
    for (const HostPattern& host : hosts)
        texts.append(host.toString());
    setPlainText(texts.join(QLatin1Char('\n')));
}

QStringList HostListEditor::lines() const
{
    QStringList result;
    for (const QString& line : toPlainText().split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty())
            result.append(line.trimmed());
    }
    return result;
}

QList<HostPattern> HostListEditor::parse(const QStringList& lines)
{
    QList<HostPattern> hosts;
    for (const QString& text : lines) {
        if (auto host = HostPattern::parse(text))
            hosts.append(*host);
    }
    return hosts;
}

QString HostListEditor::firstProblem(const QStringList& lines)
{
    for (const QString& text : lines) {
        if (auto host = HostPattern::parse(text); !host)
            return QStringLiteral("\"%1\": %2").arg(text, host.error());
    }
    return {};
}

} // namespace csm
