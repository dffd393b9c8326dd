#pragma once

#include <QDateTime>
#include <QMetaType>
#include <QString>

namespace csm {

// One connection a sandboxed program made through the egress proxy, as the history and the app
// show it: where to, whether it went and why, and how much it carried.
struct EgressConnection
{
    QString host;
    quint16 port = 0;
    bool allowed = false;
    QString reason;           // the policy's, or why the connection failed or was cut
    QString address;          // the address it went to (empty when refused)
    qint64 bytesSent = 0;     // program to host
    qint64 bytesReceived = 0; // host to program
    QDateTime started;
    qint64 durationMs = 0;
};

} // namespace csm

Q_DECLARE_METATYPE(csm::EgressConnection)
