#pragma once

#include <QDateTime>
#include <QString>

namespace csm {

// A connection a run's program made (or tried) through the egress proxy, as the history keeps
// it: where to, whether it went and why, and what it carried.
struct RunConnectionRecord
{
    QString host;
    int port = 0;
    bool allowed = false;
    QString reason;
    QString address;          // where it went; empty when refused
    qint64 bytesSent = 0;     // program to host
    qint64 bytesReceived = 0; // host to program
    QDateTime startedAt;
    qint64 durationMs = 0;

    friend bool operator==(const RunConnectionRecord&, const RunConnectionRecord&) = default;
};

} // namespace csm
