#pragma once

#include "runtime/SandboxFiles.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

class QProcess;

namespace csm {

class ContainerRuntime;

// A remote engine's copy of the files every sandbox starts with (the launcher, the seccomp profile
// and Node's fetch preload for egress proxy mode): a named volume, one per build, filled through
// the engine itself (`create` a container that mounts it, `cp` the files in, remove that
// container), since no host folder reaches its containers. The sandboxes then mount it read-only
// (ContainerSpec::kFilesVolumeMountPoint).
//
// Once its files were copied and read back as they should be, a second, empty volume says so
// (<name>-verified, labelled with the id its maker gave the volume it vouches for: a volume
// removed and made again is not the one checked): the servers that start after that use the volume
// as it is, with one call to the engine instead of ten (about 5 s through Podman's service). Until
// then a server fills it (again): the same build writes the same bytes, so a fill that a crash cut
// short is repaired. What the check guards against is such a fill, or an image's copy-up into the
// empty volume, not someone with the engine's API: they can change the sandbox's image as easily.
class SandboxFilesVolume final : public QObject
{
    Q_OBJECT

public:
    // `labels`: for the short-lived container that fills it, so that a server that dies meanwhile
    // leaves nothing the stale-container sweep would not remove.
    SandboxFilesVolume(const ContainerRuntime& runtime, SandboxFiles files,
                       QMap<QString, QString> labels, QObject* parent = nullptr);
    ~SandboxFilesVolume() override;

    // code-sandbox-files-<the first 16 hex digits of the SHA-256 of the files' contents>.
    static QString nameFor(const QList<QByteArray>& contents);
    // The volume that exists once `volume` was filled and checked.
    static QString verifiedMarkerFor(const QString& volume);
    // Empty until the launcher was read.
    QString name() const { return m_name; }

    bool isFilled() const { return m_filled; }
    bool isFilling() const { return m_step != nullptr || m_copyAgain.isActive(); }
    // Why the last fill failed; empty after a success.
    QString error() const { return m_error; }
    // What failed in the last fill.
    enum class Failure
    {
        None,
        EngineNotStarted, // the CLI could not even be started (error() is the call's message)
        Filler,           // the container that mounts it could not be made (its image, likely)
        Other,
    };
    Failure failure() const { return m_failure; }
    // The profile's copy as the engine's host sees it, once filled, where the engine opens
    // profiles itself (ContainerRuntime::enginesReadSeccompProfiles); else empty.
    QString seccompProfileOnEngine() const { return m_seccompOnEngine; }

    // Fills it, with a container of `image` (one the engine has) doing the mounting; finished()
    // follows. Nothing happens while a fill is under way or once one succeeded.
    void fill(const QString& image);

Q_SIGNALS:
    // The fill ended: isFilled(), or error() says why not.
    void finished();

private:
    using Next = std::function<void(int exitCode, const QByteArray& standardError)>;
    // The fill's steps, in order.
    void createVolume(const QString& image);
    void createFiller(const QString& image);
    // Copies m_placed[index] and those after it into the volume, then reads them back.
    // `attempt`: 1, 2... A copy can fail while another server fills the same volume at the same
    // moment (the engine replaces the file under it); the bytes are the same, so it is tried
    // again, kCopyTries times in all.
    void copy(int index, int attempt = 1);
    static constexpr int kCopyTries = 3;
    static constexpr int kCopyRetryMs = 300;
    // Reads m_placed[index] and those after it back from the volume: each a regular file with
    // the content copied, or the fill fails (a link or other content planted there, by an
    // image's copy-up into the empty volume or by anyone with the engine's API, is never
    // trusted).
    void verify(int index);
    void markVerified();
    // The volume is ready: where the engine opens profiles itself, it is asked where the
    // volume's profile is, then the fill succeeds.
    void finishWithTheVolume();
    void findProfileOnEngine();
    void succeed();
    void run(const QStringList& arguments, Next next);
    void fail(const QString& what, const QByteArray& standardError,
              Failure failure = Failure::Other);
    void removeHelper();

    const ContainerRuntime& m_runtime;
    SandboxFiles m_files;
    QMap<QString, QString> m_labels;
    QString m_name;
    // What the volume must hold: each file's name there, the host file copied (one with what
    // it held when this was made), that content, and whether the sandbox runs it.
    struct PlacedFile
    {
        QString name;
        QString hostPath;
        QByteArray content;
        bool executable = false;
    };
    QList<PlacedFile> m_placed;
    // Where the files that are not a host file already (the preload) are written to be copied.
    std::unique_ptr<QTemporaryDir> m_staging;
    QString m_helper;
    // The id of the volume being filled (ContainerLabels::kVolumeId): what its marker vouches
    // for; empty for one made by something else than a server.
    QString m_volumeId;
    QPointer<QProcess> m_step;
    // Waits before a copy is tried again.
    QTimer m_copyAgain;
    QElapsedTimer m_sinceFill;
    QString m_error;
    Failure m_failure = Failure::None;
    QString m_seccompOnEngine;
    // The standard output of the last step.
    QByteArray m_lastOutput;
    bool m_filled = false;
    // The last fill found the volume filled and checked by an earlier one.
    bool m_foundChecked = false;
};

} // namespace csm
