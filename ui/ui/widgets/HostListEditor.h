#pragma once

#include "egress/HostPattern.h"

#include <QList>
#include <QPlainTextEdit>
#include <QStringList>

namespace csm {

// A list of host patterns (HOST[:PORT], *.domain, an address), one a line, as the Settings page
// edits the allowed and the always-allowed hosts.
class HostListEditor final : public QPlainTextEdit
{
    Q_OBJECT

public:
    HostListEditor(const QString& placeholder, QWidget* parent = nullptr);

    void setHosts(const QList<HostPattern>& hosts);
    // The lines as written, blank ones left out.
    QStringList lines() const;

    // The patterns of `lines` that parse (a list with a bad line is not saved: firstProblem()).
    static QList<HostPattern> parse(const QStringList& lines);
    // "\"LINE\": why" for the first line that does not parse, or empty.
    static QString firstProblem(const QStringList& lines);
};

} // namespace csm
