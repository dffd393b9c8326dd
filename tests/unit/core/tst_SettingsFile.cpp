// settings.ini holds the HTTP server's token: it is private (0600) from the moment it exists,
// whatever the umask, and so is every file QSettings writes on the way (its temporary file). A
// fanotify listener (root only) holds every open of a file in the data folder until it has
// looked at the file's mode, so not even a moment of a wider mode goes unseen.
#include "core/SettingsFile.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using csm::Expected;
using csm::SettingsFile;

namespace {

// The mode of every file opened in one folder, recorded while the open waits.
class FileOpenWatch final
{
public:
    struct Open
    {
        QString name;
        mode_t mode = 0;
    };

    explicit FileOpenWatch(const QString& folder)
    {
        m_fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_LARGEFILE);
        if (m_fd < 0) {
            m_error = QString::fromLocal8Bit(strerror(errno));
            return;
        }
        if (fanotify_mark(m_fd, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_EVENT_ON_CHILD, AT_FDCWD,
                          QFile::encodeName(folder).constData()) != 0) {
            m_error = QString::fromLocal8Bit(strerror(errno));
            ::close(m_fd);
            m_fd = -1;
            return;
        }
        m_thread = std::thread([this] { listen(); });
    }

    ~FileOpenWatch()
    {
        m_stop = true;
        if (m_thread.joinable())
            m_thread.join();
        if (m_fd >= 0)
            ::close(m_fd);
    }

    Q_DISABLE_COPY_MOVE(FileOpenWatch)

    bool isWatching() const { return m_fd >= 0; }
    QString error() const { return m_error; }

    QList<Open> opens()
    {
        const std::lock_guard lock(m_mutex);
        return m_opens;
    }

private:
    void listen()
    {
        alignas(fanotify_event_metadata) char buffer[8192];
        while (!m_stop) {
            pollfd wait{m_fd, POLLIN, 0};
            if (::poll(&wait, 1, 20) <= 0)
                continue;
            const ssize_t length = ::read(m_fd, buffer, sizeof buffer);
            if (length <= 0)
                continue;
            auto* event = reinterpret_cast<fanotify_event_metadata*>(buffer);
            ssize_t left = length;
            while (FAN_EVENT_OK(event, left)) {
                record(event->fd);
                const fanotify_response allow{event->fd, FAN_ALLOW};
                [[maybe_unused]] const ssize_t written = ::write(m_fd, &allow, sizeof allow);
                ::close(event->fd);
                event = FAN_EVENT_NEXT(event, left);
            }
        }
    }

    void record(int fd)
    {
        struct stat info = {};
        if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
            return;
        char path[PATH_MAX] = {};
        const QByteArray link = "/proc/self/fd/" + QByteArray::number(fd);
        const ssize_t size = ::readlink(link.constData(), path, sizeof path - 1);
        const std::lock_guard lock(m_mutex);
        m_opens.append(
            {QFileInfo(QFile::decodeName(QByteArray(path, qMax<ssize_t>(0, size)))).fileName(),
             static_cast<mode_t>(info.st_mode & 07777)});
    }

    int m_fd = -1;
    QString m_error;
    std::atomic_bool m_stop = false;
    std::thread m_thread;
    std::mutex m_mutex;
    QList<Open> m_opens;
};

// Sets the umask for the scope of a test.
class Umask final
{
public:
    explicit Umask(mode_t mask)
        : m_previous(::umask(mask))
    {}
    ~Umask() { ::umask(m_previous); }
    Q_DISABLE_COPY_MOVE(Umask)

private:
    mode_t m_previous;
};

mode_t modeOf(const QString& path)
{
    struct stat info = {};
    if (::stat(QFile::encodeName(path).constData(), &info) != 0)
        return 0;
    return info.st_mode & 07777;
}

bool saveToken(const QString& dataDir, const QString& token)
{
    SettingsFile file(dataDir, QStringLiteral("desktop"));
    file.setValue(QStringLiteral("http-token"), token);
    const Expected<void> saved = file.save();
    if (!saved) {
        qWarning().noquote() << saved.error();
        return false;
    }
    return true;
}

} // namespace

class tst_SettingsFile final : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void privateFromTheStartWithAnOpenUmask()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        const QString dataDir = root.filePath(QStringLiteral("data"));
        const Umask open(0);
        QVERIFY(saveToken(dataDir, QStringLiteral("first-token")));
        QCOMPARE(modeOf(SettingsFile::path(dataDir)), mode_t(0600));
        QCOMPARE(modeOf(dataDir), mode_t(0700)); // a new data folder is private too
        QCOMPARE(
            SettingsFile(dataDir, QStringLiteral("desktop")).value(QStringLiteral("http-token")),
            QStringLiteral("first-token"));
        QVERIFY(saveToken(dataDir, QStringLiteral("second-token")));
        QCOMPARE(modeOf(SettingsFile::path(dataDir)), mode_t(0600));
    }

    void anExistingFolderKeepsItsMode()
    {
        QTemporaryDir root;
        QVERIFY(root.isValid());
        QVERIFY(QFile::setPermissions(root.path(), QFile::permissions(root.path()) |
                                                       QFileDevice::ReadGroup |
                                                       QFileDevice::ExeGroup));
        const mode_t before = modeOf(root.path());
        QVERIFY(saveToken(root.path(), QStringLiteral("t")));
        QCOMPARE(modeOf(root.path()), before);
    }

    void noFileIsEverOpenWithAWiderMode_data()
    {
        QTest::addColumn<int>("existingMode"); // 0: no file yet
        QTest::newRow("first save") << 0;
        QTest::newRow("next save") << 0600;
        QTest::newRow("a file an older version left readable") << 0644;
    }

    void noFileIsEverOpenWithAWiderMode()
    {
        QFETCH(int, existingMode);
        QTemporaryDir dataDir;
        QVERIFY(dataDir.isValid());
        const Umask open(0);
        const QString path = SettingsFile::path(dataDir.path());
        if (existingMode != 0) {
            QVERIFY(saveToken(dataDir.path(), QStringLiteral("old")));
            QVERIFY(::chmod(QFile::encodeName(path).constData(), mode_t(existingMode)) == 0);
        }
        // Read before the watch starts: reading an old file as it is exposes nothing new.
        SettingsFile file(dataDir.path(), QStringLiteral("desktop"));
        file.setValue(QStringLiteral("http-token"), QStringLiteral("secret-token"));
        FileOpenWatch watch(dataDir.path());
        if (!watch.isWatching())
            QSKIP(qPrintable(QStringLiteral("fanotify needs root here: ") + watch.error()));
        const Expected<void> saved = file.save();
        QVERIFY2(saved, qPrintable(saved.error()));
        const QList<FileOpenWatch::Open> opens = watch.opens();
        int settingsOpens = 0;
        int temporaryOpens = 0;
        for (const FileOpenWatch::Open& opened : opens) {
            // QSettings' lock file holds a pid and a host name, nothing of the settings.
            if (opened.name.endsWith(QLatin1String(".lock")))
                continue;
            QVERIFY2(opened.mode == 0600, qPrintable(QStringLiteral("%1 was open with mode %2")
                                                         .arg(opened.name)
                                                         .arg(opened.mode, 0, 8)));
            if (opened.name == QLatin1String("settings.ini"))
                ++settingsOpens;
            else
                ++temporaryOpens;
        }
        QVERIFY(settingsOpens > 0);
        QVERIFY(temporaryOpens > 0); // QSettings' temporary file was seen, at 0600
        QCOMPARE(modeOf(path), mode_t(0600));
    }
};

QTEST_GUILESS_MAIN(tst_SettingsFile)
#include "tst_SettingsFile.moc"
