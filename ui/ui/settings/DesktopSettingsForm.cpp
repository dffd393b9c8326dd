#include "ui/settings/DesktopSettingsForm.h"

namespace csm {

namespace {

// DesktopSettings' bounds.
constexpr int kMinApprovalSeconds = 5;
constexpr int kMaxApprovalSeconds = 3600;

using Member = bool DesktopSettings::*;

DesktopSettingsForm::Setting switchSetting(const char* key, const QString& group,
                                           const QString& label, const char* objectName,
                                           Member member)
{
    SettingFormField field;
    field.key = QString::fromLatin1(key);
    field.kind = SettingFormField::Kind::Switch;
    field.group = group;
    field.label = label;
    field.objectName = QString::fromLatin1(objectName);
    return {field,
            [member](const QString& text, DesktopSettings& settings) -> std::optional<QString> {
                settings.*member = text == QLatin1String("true");
                return std::nullopt;
            },
            [member](const DesktopSettings& settings) {
                return settings.*member ? QStringLiteral("true") : QStringLiteral("false");
            }};
}

} // namespace

const std::vector<DesktopSettingsForm::Setting>& DesktopSettingsForm::settings()
{
    static const std::vector<Setting> all = [] {
        const QString approval = QStringLiteral("Approval");
        const QString notifications = QStringLiteral("Notifications");
        std::vector<Setting> list;
        list.push_back(switchSetting("approval-required", approval,
                                     QStringLiteral("Ask me to &approve each call to this app's "
                                                    "server"),
                                     "approvalRequired", &DesktopSettings::approvalRequired));
        SettingFormField timeout;
        timeout.key = QStringLiteral("approval-timeout");
        timeout.group = approval;
        timeout.label = QStringLiteral("Deny a call nobody approves wit&hin:");
        timeout.objectName = QStringLiteral("approvalTimeout");
        timeout.minimum = kMinApprovalSeconds;
        timeout.maximum = kMaxApprovalSeconds;
        timeout.suffix = QStringLiteral(" s");
        timeout.note = QStringLiteral("Headless servers started by an assistant are not affected.");
        list.push_back(
            {timeout,
             [](const QString& text, DesktopSettings& settings) -> std::optional<QString> {
                 bool ok = false;
                 const int seconds = text.toInt(&ok);
                 if (!ok || seconds < kMinApprovalSeconds || seconds > kMaxApprovalSeconds)
                     return QStringLiteral("must be from %1 to %2 s")
                         .arg(kMinApprovalSeconds)
                         .arg(kMaxApprovalSeconds);
                 settings.approvalTimeoutSeconds = seconds;
                 return std::nullopt;
             },
             [](const DesktopSettings& settings) {
                 return QString::number(settings.approvalTimeoutSeconds);
             }});
        list.push_back(switchSetting("notify-approvals", notifications,
                                     QStringLiteral("Notify me when a call &waits for my approval"),
                                     "notifyApprovals", &DesktopSettings::notifyApprovals));
        list.push_back(switchSetting("notify-failures", notifications,
                                     QStringLiteral("Notify me when a call &fails or runs out of "
                                                    "memory (any server)"),
                                     "notifyFailures", &DesktopSettings::notifyFailures));
        list.back().field.note =
            QStringLiteral("Shown by the desktop's notification area, where it has one.");
        return list;
    }();
    return all;
}

} // namespace csm
