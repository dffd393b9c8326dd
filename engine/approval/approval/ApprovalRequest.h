#pragma once

#include "mcp/ReviewedFile.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>

namespace csm {

// One tools/call waiting for the user's yes or no, as the approval dialog shows it.
struct ApprovalRequest
{
    quint64 id = 0;
    QString tool;              // run_python_code, run_js_code
    QString code;              // the program, as the client sent it
    QList<ReviewedFile> files; // the files it sends along (`files`)
    QString clientName;        // initialize's clientInfo.name
    QString transport;         // stdio, http
    QDateTime askedAt;
    int timeoutMs = 0; // denied when nobody answers within this long
};

} // namespace csm

Q_DECLARE_METATYPE(csm::ApprovalRequest)
