#include "ui/settings/DesktopSettings.h"

#include "core/SettingsFile.h"

namespace csm {

namespace {
const QString kGroup = QStringLiteral("desktop");

bool readBool(const SettingsFile& file, const QString& key, bool fallback)
{
    if (!file.contains(key))
        return fallback;
    return file.value(key).trimmed().compare(QLatin1String("true"), Qt::CaseInsensitive) == 0;
}

int readInt(const SettingsFile& file, const QString& key, int fallback, int minimum, int maximum)
{
    bool ok = false;
    const int value = file.value(key).toInt(&ok);
    return ok && value >= minimum && value <= maximum ? value : fallback;
}

QString text(bool value)
{
    return value ? QStringLiteral("true") : QStringLiteral("false");
}
} // namespace

DesktopSettings DesktopSettings::load(const QString& dataDir)
{
    const SettingsFile file(dataDir, kGroup);
    DesktopSettings settings;
    settings.approvalRequired =
        readBool(file, QStringLiteral("approval"), settings.approvalRequired);
    settings.approvalTimeoutSeconds =
        readInt(file, QStringLiteral("approval-timeout"), settings.approvalTimeoutSeconds, 5, 3600);
    if (file.contains(QStringLiteral("http-host")))
        settings.httpHost = file.value(QStringLiteral("http-host")).trimmed();
    settings.httpPort = readInt(file, QStringLiteral("http-port"), settings.httpPort, 0, 65535);
    settings.httpToken = file.value(QStringLiteral("http-token")).trimmed();
    settings.httpAllowRemote =
        readBool(file, QStringLiteral("http-allow-remote"), settings.httpAllowRemote);
    settings.httpStartWithApp =
        readBool(file, QStringLiteral("http-start-with-app"), settings.httpStartWithApp);
    settings.notifyApprovals =
        readBool(file, QStringLiteral("notify-approvals"), settings.notifyApprovals);
    settings.notifyFailures =
        readBool(file, QStringLiteral("notify-failures"), settings.notifyFailures);
    settings.setupDone = readBool(file, QStringLiteral("setup-done"), settings.setupDone);
    settings.trayNoticeShown =
        readBool(file, QStringLiteral("tray-notice-shown"), settings.trayNoticeShown);
    return settings;
}

http::HttpServerConfig DesktopSettings::httpServerConfig() const
{
    http::HttpServerConfig config;
    config.host = httpHost;
    config.port = static_cast<quint16>(httpPort);
    config.allowRemote = httpAllowRemote;
    config.authToken = httpToken;
    return config;
}

Expected<void> DesktopSettings::save(const QString& dataDir) const
{
    SettingsFile file(dataDir, kGroup);
    file.setValue(QStringLiteral("approval"), text(approvalRequired));
    file.setValue(QStringLiteral("approval-timeout"), QString::number(approvalTimeoutSeconds));
    file.setValue(QStringLiteral("http-host"), httpHost);
    file.setValue(QStringLiteral("http-port"), QString::number(httpPort));
    file.setValue(QStringLiteral("http-token"), httpToken);
    file.setValue(QStringLiteral("http-allow-remote"), text(httpAllowRemote));
    file.setValue(QStringLiteral("http-start-with-app"), text(httpStartWithApp));
    file.setValue(QStringLiteral("notify-approvals"), text(notifyApprovals));
    file.setValue(QStringLiteral("notify-failures"), text(notifyFailures));
    file.setValue(QStringLiteral("setup-done"), text(setupDone));
    file.setValue(QStringLiteral("tray-notice-shown"), text(trayNoticeShown));
    return file.save();
}

} // namespace csm
