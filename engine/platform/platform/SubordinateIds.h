#pragma once

#include <QString>

namespace csm {

// The ranges of subordinate user and group ids that accounts may hand to user namespaces
// (/etc/subuid and /etc/subgid, "account:first:count" per line), and whether this process runs
// as the administrator, to whom the engine's rootful mode belongs. Elsewhere than Linux there
// are none.
class SubordinateIds final
{
public:
    // `folder`: where subuid and subgid are (tests give their own).
    explicit SubordinateIds(QString folder = QStringLiteral("/etc"));

    // Whether both files give `account` at least `count` ids in one range.
    bool grant(const QString& account, qint64 count) const;

    static bool runningAsAdministrator();

private:
    QString m_folder;
};

} // namespace csm
