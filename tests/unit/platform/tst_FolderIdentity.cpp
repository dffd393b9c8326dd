// FolderIdentity: a shared folder's path is resolved again by the engine at every container
// start, so each way of making that path name another folder must be noticed.
#include "platform/FolderIdentity.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using csm::FolderIdentity;

class tst_FolderIdentity final : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_root;
    QString m_base; // canonical m_root
    QString m_data; // m_base/p/data, the shared folder

private Q_SLOTS:
    void init()
    {
        QVERIFY(m_root.isValid());
        m_base = QFileInfo(m_root.path()).canonicalFilePath();
        QDir base(m_base);
        base.removeRecursively();
        QVERIFY(QDir().mkpath(m_base + QStringLiteral("/p/data")));
        QVERIFY(QDir().mkpath(m_base + QStringLiteral("/elsewhere")));
        m_data = m_base + QStringLiteral("/p/data");
    }

    void theSameFolderIsUnchanged()
    {
        const FolderIdentity identity = FolderIdentity::of(m_data);
        QVERIFY(!identity.isEmpty());
        QCOMPARE(identity.changeNow(), QString());
        QCOMPARE(FolderIdentity::of(m_data), identity);
        // Its contents are not its identity.
        QVERIFY(QDir(m_data).mkdir(QStringLiteral("new")));
        QCOMPARE(identity.changeNow(), QString());
    }

    void aFolderRenamedAndReplacedByALinkIsNoticed()
    {
        // What a sandbox did through a writable share above it.
        const FolderIdentity identity = FolderIdentity::of(m_data);
        QVERIFY(QDir().rename(m_data, m_data + QStringLiteral(".orig")));
        QVERIFY(QFile::link(m_base + QStringLiteral("/elsewhere"), m_data));
        QCOMPARE(identity.changeNow(), m_data + QStringLiteral(" is now a symbolic link"));
        QVERIFY(FolderIdentity::of(m_data).isEmpty()); // never taken through a link
    }

    void aFolderReplacedByAnotherIsNoticed()
    {
        const FolderIdentity identity = FolderIdentity::of(m_data);
        QVERIFY(QDir().rename(m_data, m_data + QStringLiteral(".orig")));
        QVERIFY(QDir().mkdir(m_data));
        QCOMPARE(identity.changeNow(), m_data + QStringLiteral(" is now another folder"));
        QVERIFY(FolderIdentity::of(m_data) != identity);
    }

    void aReplacedParentIsNoticed()
    {
        const FolderIdentity identity = FolderIdentity::of(m_data);
        const QString parent = m_base + QStringLiteral("/p");
        QVERIFY(QDir().rename(parent, m_base + QStringLiteral("/p.orig")));
        QVERIFY(QDir().mkpath(m_data));
        QCOMPARE(identity.changeNow(), parent + QStringLiteral(" is now another folder"));
    }

    void aRemovedFolderIsNoticed()
    {
        const FolderIdentity identity = FolderIdentity::of(m_data);
        QVERIFY(QDir(m_data).removeRecursively());
        QCOMPARE(identity.changeNow(), m_data + QStringLiteral(" is gone"));
    }

    void aFileIsNoFolder()
    {
        QFile file(m_base + QStringLiteral("/file"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QVERIFY(FolderIdentity::of(file.fileName()).isEmpty());
    }
};

QTEST_GUILESS_MAIN(tst_FolderIdentity)
#include "tst_FolderIdentity.moc"
