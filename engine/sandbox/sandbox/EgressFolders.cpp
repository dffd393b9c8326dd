#include "sandbox/EgressFolders.h"

#include "platform/ProcessProbe.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>

namespace csm {

namespace {
const QString kPrefix = QStringLiteral("code-sandbox-egress-");
} // namespace

std::unique_ptr<QTemporaryDir> EgressFolders::makeRoot(const QString& parent,
                                                       const LivenessCheck& isAlive)
{
    auto root = std::make_unique<QTemporaryDir>(QStringLiteral("%1/%2%3-XXXXXX")
                                                    .arg(parent, kPrefix)
                                                    .arg(QCoreApplication::applicationPid()));
    if (!root->isValid())
        return root;
    const uint owner = QFileInfo(root->path()).ownerId();
    const QFileInfoList siblings = QDir(parent).entryInfoList(
        {kPrefix + QLatin1Char('*')}, QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks);
    for (const QFileInfo& sibling : siblings) {
        // code-sandbox-egress-PID-XXXXXX; the folders of older builds have no pid: left alone.
        const QString rest = sibling.fileName().mid(kPrefix.size());
        bool ok = false;
        const qint64 pid = rest.section(QLatin1Char('-'), 0, 0).toLongLong(&ok);
        if (!ok || pid <= 0 || sibling.ownerId() != owner ||
            sibling.absoluteFilePath() == QFileInfo(root->path()).absoluteFilePath())
            continue;
        const bool alive = isAlive ? isAlive(pid) : ProcessProbe::isCodeSandboxProcessAlive(pid);
        if (!alive)
            QDir(sibling.absoluteFilePath()).removeRecursively();
    }
    return root;
}

} // namespace csm
