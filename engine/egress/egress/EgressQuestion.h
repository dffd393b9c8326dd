#pragma once

#include <QDateTime>
#include <QMetaType>
#include <QString>

namespace csm {

// A host a sandbox asked to connect to, in ask mode, that waits for the person's answer.
struct EgressQuestion
{
    quint64 id = 0;
    // Which run asks: its proxy's number (questions of different runs are never merged: "allow
    // for this run" is that run's), and what the person recognises it by.
    quint64 run = 0;
    QString runLabel;
    QString host;
    quint16 port = 0;
    QDateTime askedAt; // UTC
    int timeoutMs = 0; // unanswered this long, it is denied
};

} // namespace csm

Q_DECLARE_METATYPE(csm::EgressQuestion)
