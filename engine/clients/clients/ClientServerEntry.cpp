#include "clients/ClientServerEntry.h"

#include <QDir>

namespace csm {

ClientServerEntry ClientServerEntry::stdio(const QString& command, const QStringList& arguments,
                                           const QMap<QString, QString>& environment)
{
    ClientServerEntry entry;
    entry.transport = Transport::Stdio;
    entry.command = command;
    entry.arguments = arguments;
    entry.environment = environment;
    return entry;
}

ClientServerEntry ClientServerEntry::http(const QUrl& url, const QString& token)
{
    ClientServerEntry entry;
    entry.transport = Transport::Http;
    entry.url = url;
    entry.token = token;
    return entry;
}

QString ClientServerEntry::problem() const
{
    if (name.trimmed().isEmpty())
        return QStringLiteral("the server needs a name");
    switch (transport) {
    case Transport::Stdio:
        if (command.isEmpty())
            return QStringLiteral("the stdio server needs a command");
        if (!QDir::isAbsolutePath(command))
            return QStringLiteral("the command \"%1\" must be an absolute path: clients start "
                                  "it without the PATH of a shell")
                .arg(command);
        return {};
    case Transport::Http:
        if (!url.isValid() || url.host().isEmpty() ||
            (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
            return QStringLiteral("\"%1\" is not an http(s) URL").arg(url.toString());
        if (url.port() == 0)
            return QStringLiteral("the URL needs the server's actual port, not 0");
        if (token.contains(QLatin1Char('\n')) || token.contains(QLatin1Char('\r')))
            return QStringLiteral("the token cannot contain a line break");
        return {};
    }
    Q_UNREACHABLE();
}

} // namespace csm
